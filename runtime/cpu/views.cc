// View primitives as stride arithmetic over the input's buffer (no copies), plus pad and concat,
// which write a new buffer.
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {
namespace {

// Strides that let `x` be read as `shape` without copying, if the dims being merged or split
// are laid out compatibly; false otherwise.
bool reshape_strides(const Array& x, const Shape& shape, std::vector<int64_t>& out) {
  // Drop size-1 dims of the input, then match groups of dims with equal element counts.
  std::vector<int64_t> sizes, strides;
  for (int d = 0; d < x.type.shape.rank(); ++d) {
    if (x.type.shape[d] != 1) {
      sizes.push_back(x.type.shape[d]);
      strides.push_back(x.strides[d]);
    }
  }
  out.assign(shape.rank(), 0);
  size_t i = 0;
  int o = 0;
  while (o < shape.rank()) {
    if (shape[o] == 1) {
      out[o++] = 1;
      continue;
    }
    if (i >= sizes.size()) return false;
    // Collect input dims [i, j) and output dims [o, p) with the same element count.
    size_t j = i + 1;
    int p = o + 1;
    int64_t in_n = sizes[i], out_n = shape[o];
    while (in_n != out_n) {
      if (in_n < out_n) {
        if (j >= sizes.size()) return false;
        in_n *= sizes[j++];
      } else {
        if (p >= shape.rank()) return false;
        out_n *= shape[p++];
      }
    }
    for (size_t k = i; k + 1 < j; ++k) {
      if (strides[k] != strides[k + 1] * sizes[k + 1]) return false;
    }
    int64_t s = strides[j - 1];
    for (int q = p - 1; q >= o; --q) {
      out[q] = s;
      s *= shape[q];
    }
    i = j;
    o = p;
  }
  return i == sizes.size();
}

}  // namespace

Array view_reshape(const Array& x, const Shape& shape) {
  std::vector<int64_t> strides;
  if (shape.numel() == 0 || !reshape_strides(x, shape, strides)) {
    Array c = x.is_contiguous() ? x : make_contiguous(x);
    return Array::contiguous(c.buffer, {x.type.dtype, shape});
  }
  return Array{x.buffer, {x.type.dtype, shape}, std::move(strides), x.offset};
}

Array view_permute(const Array& x, const std::vector<int>& perm) {
  Array out{x.buffer, x.type, x.strides, x.offset};
  for (size_t i = 0; i < perm.size(); ++i) {
    out.type.shape[i] = x.type.shape[perm[i]];
    out.strides[i] = x.strides[perm[i]];
  }
  return out;
}

Array view_expand(const Array& x, const Shape& shape) {
  Array out{x.buffer, {x.type.dtype, shape}, x.strides, x.offset};
  for (int d = 0; d < shape.rank(); ++d) {
    if (x.type.shape[d] != shape[d]) out.strides[d] = 0;
  }
  return out;
}

Array view_slice(const Array& x, const ir::SliceAttrs& attrs, const Shape& shape) {
  Array out{x.buffer, {x.type.dtype, shape}, x.strides, x.offset};
  if (shape.numel() == 0) return allocate(out.type);
  for (int d = 0; d < shape.rank(); ++d) {
    out.offset += attrs.starts[d] * x.strides[d];
    out.strides[d] = x.strides[d] * attrs.steps[d];
  }
  return out;
}

Array view_flip(const Array& x, const std::vector<int>& axes) {
  Array out{x.buffer, x.type, x.strides, x.offset};
  for (int a : axes) {
    if (x.type.shape[a] == 0) continue;
    out.offset += (x.type.shape[a] - 1) * x.strides[a];
    out.strides[a] = -x.strides[a];
  }
  return out;
}

Array run_pad(const Array& x, const ir::PadAttrs& attrs, const TensorType& out_type) {
  Array out = run_full(out_type, attrs.value);
  if (x.type.shape.numel() == 0) return out;
  // The input lands in the interior, a slice of the output.
  ir::SliceAttrs interior{attrs.before, std::vector<int64_t>(attrs.before.size(), 1)};
  copy_into(x, view_slice(out, interior, x.type.shape));
  return out;
}

Array run_concat(std::span<const Array> xs, int axis, const TensorType& out_type) {
  Array out = allocate(out_type);
  int rank = out_type.shape.rank();
  std::vector<int64_t> starts(rank, 0), steps(rank, 1);
  for (const Array& x : xs) {
    if (x.type.shape.numel() > 0) copy_into(x, view_slice(out, {starts, steps}, x.type.shape));
    starts[axis] += x.type.shape[axis];
  }
  return out;
}

}  // namespace ember::runtime::cpu
