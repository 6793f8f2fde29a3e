// Pooling as compositions the JIT fuses: each kernel offset is a strided view of the padded
// input, and the window's max (a where chain, so the gradient goes to the first maximum as in
// PyTorch) or sum is one elementwise expression over those views. Adaptive average pooling is a
// product with averaging matrices; adaptive max pooling takes maxima of index selections, one
// spatial dim at a time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/detail/primitives.h"
#include "frontend/module_ops.h"
#include "frontend/ops.h"
#include "frontend/tensor_data.h"
#include "ir/builder.h"

namespace ember::ops {
namespace {

using ir::BinaryFn;

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw Error(absl::StrCat(op, ": ", msg));
}

void require_input(const char* op, const RawTensor& x, int spatial) {
  if (x.rank() != spatial + 2 || spatial < 1) {
    fail(op, absl::StrCat("needs a rank-", spatial + 2, " input [batch, channels, ",
                          spatial == 1 ? "length" : "spatial...", "], got ", x.type().to_string()));
  }
  if (!is_float(x.dtype())) fail(op, "needs a float tensor, got " + x.type().to_string());
}

struct Window {
  std::vector<int64_t> kernel, stride, pad, dil, out, pad_after;
};

// Output sizes as PyTorch's pooling: floor or ceil, and in ceil mode no window may start in the
// right padding.
Window window(const char* op, const RawTensor& x, const PoolArgs& a) {
  const int sr = x.rank() - 2;
  auto filled = [&](const std::vector<int64_t>& v, const std::vector<int64_t>& dflt,
                    const char* what) {
    if (v.empty()) return dflt;
    if (static_cast<int>(v.size()) != sr) {
      fail(op, absl::StrCat(what, " needs ", sr, " values, got [", absl::StrJoin(v, ", "), "]"));
    }
    return v;
  };
  Window w;
  w.kernel = filled(a.kernel, {}, "kernel_size");
  w.stride = filled(a.stride, w.kernel, "stride");
  w.pad = filled(a.padding, std::vector<int64_t>(sr, 0), "padding");
  w.dil = filled(a.dilation, std::vector<int64_t>(sr, 1), "dilation");
  for (int d = 0; d < sr; ++d) {
    const int64_t k = w.kernel[d], s = w.stride[d], p = w.pad[d], dl = w.dil[d];
    const int64_t size = x.shape()[d + 2];
    if (k < 1 || s < 1 || dl < 1 || p < 0) {
      fail(op,
           absl::StrCat("kernel_size, stride and dilation must be >= 1 and padding >= 0, got "
                        "kernel [",
                        absl::StrJoin(w.kernel, ", "), "] stride [", absl::StrJoin(w.stride, ", "),
                        "] padding [", absl::StrJoin(w.pad, ", "), "]"));
    }
    const int64_t extent = dl * (k - 1) + 1;
    if (2 * p > extent) {
      fail(op, absl::StrCat("padding ", p, " must be at most half the kernel extent ", extent));
    }
    const int64_t span = size + 2 * p - extent;
    if (span < 0) {
      fail(op, absl::StrCat("kernel extent ", extent, " is larger than the padded input ",
                            size + 2 * p, " in spatial dim ", d, " of ", x.type().to_string()));
    }
    int64_t out = (a.ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (a.ceil_mode && (out - 1) * s >= size + p) --out;
    w.out.push_back(out);
    // Room for every window: the last may reach past the right padding in ceil mode.
    w.pad_after.push_back(std::max(p, (out - 1) * s + extent - size - p));
  }
  return w;
}

// The view of padded input `xp` that kernel offset `k` (one per spatial dim) sees.
RawTensor window_view(const RawTensor& xp, const Window& w, const std::vector<int64_t>& k) {
  const int r = xp.rank();
  std::vector<int64_t> starts(r, 0), counts = xp.shape().vector(), steps(r, 1);
  for (int d = 2; d < r; ++d) {
    starts[d] = k[d - 2] * w.dil[d - 2];
    counts[d] = w.out[d - 2];
    steps[d] = w.stride[d - 2];
  }
  return prim::slice(xp, starts, counts, steps);
}

// Calls f(k) for every kernel offset, in row-major order.
template <class F>
void for_each_offset(const std::vector<int64_t>& kernel, F&& f) {
  std::vector<int64_t> k(kernel.size(), 0);
  while (true) {
    f(k);
    int d = static_cast<int>(k.size()) - 1;
    while (d >= 0 && ++k[d] == kernel[d]) k[d--] = 0;
    if (d < 0) return;
  }
}

RawTensor padded(const RawTensor& x, const Window& w, double pad_value) {
  const int r = x.rank();
  std::vector<int64_t> before(r, 0), after(r, 0);
  for (int d = 2; d < r; ++d) {
    before[d] = w.pad[d - 2];
    after[d] = w.pad_after[d - 2];
  }
  return prim::pad(x, before, after, ir::Scalar::from_double(pad_value));
}

// The flat index in the unpadded input plane that offset k reads for each output position:
// an i32 tensor [1, 1, out...] of iota arithmetic.
RawTensor flat_index(const RawTensor& x, const Window& w, const std::vector<int64_t>& k) {
  const int r = x.rank();
  std::vector<int64_t> dims(r, 1);
  for (int d = 2; d < r; ++d) dims[d] = w.out[d - 2];
  Shape shape(dims);
  RawTensor flat;
  for (int d = 2; d < r; ++d) {
    RawTensor pos = prim::iota(shape, DType::I32, d, x.device());
    pos = prim::binary_scalar(BinaryFn::Mul, pos, ir::Scalar::from_int(w.stride[d - 2]));
    pos = prim::binary_scalar(BinaryFn::Add, pos,
                              ir::Scalar::from_int(k[d - 2] * w.dil[d - 2] - w.pad[d - 2]));
    if (flat.defined()) {
      flat = prim::binary_scalar(BinaryFn::Mul, flat, ir::Scalar::from_int(x.shape()[d]));
      flat = prim::binary(BinaryFn::Add, flat, pos);
    } else {
      flat = pos;
    }
  }
  return flat;
}

// Where candidate v replaces the running maximum: larger, or NaN (PyTorch propagates NaN). A
// where chain, so the gradient goes to the first maximum of a window, as PyTorch's.
RawTensor takes_max(const RawTensor& v, const RawTensor& best) {
  return prim::binary(BinaryFn::LogicalOr, prim::binary(BinaryFn::Gt, v, best),
                      prim::unary(ir::UnaryFn::IsNan, v));
}

RawTensor constant(const std::vector<double>& values, const Shape& shape, DType dtype,
                   const Device& device) {
  return prim::cast(prim::from_data(TensorData(values, shape), device), dtype);
}

}  // namespace

RawTensor max_pool(const char* op, const RawTensor& x, const PoolArgs& args, RawTensor* indices) {
  ir::OpScope scope(op);
  require_input(op, x, static_cast<int>(x.rank()) - 2);
  const Window w = window(op, x, args);
  const RawTensor xp = padded(x, w, -std::numeric_limits<double>::infinity());
  RawTensor best, index;
  for_each_offset(w.kernel, [&](const std::vector<int64_t>& k) {
    RawTensor v = window_view(xp, w, k);
    RawTensor at = indices ? flat_index(x, w, k) : RawTensor();
    if (!best.defined()) {
      best = v;
      index = at;
      return;
    }
    RawTensor take = takes_max(v, best);
    best = prim::where(take, v, best);
    if (indices) index = prim::where(take, prim::expand(at, best.shape()), index);
  });
  if (indices) *indices = prim::expand(index, best.shape());
  return best;
}

RawTensor avg_pool(const char* op, const RawTensor& x, const PoolArgs& args) {
  ir::OpScope scope(op);
  require_input(op, x, static_cast<int>(x.rank()) - 2);
  PoolArgs a = args;
  a.dilation.clear();
  const Window w = window(op, x, a);
  const RawTensor xp = padded(x, w, 0);
  RawTensor sum;
  for_each_offset(w.kernel, [&](const std::vector<int64_t>& k) {
    RawTensor v = window_view(xp, w, k);
    sum = sum.defined() ? prim::binary(BinaryFn::Add, sum, v) : v;
  });
  // The divisor counts the window's elements inside the input (and inside the padding when
  // count_include_pad), never those past the right padding that ceil mode adds.
  std::vector<int64_t> plane(x.rank(), 1);
  for (int d = 2; d < x.rank(); ++d) plane[d] = x.shape()[d];
  RawTensor ones = prim::full(Shape(plane), x.dtype(), ir::Scalar::from_double(1), x.device());
  std::vector<int64_t> before(x.rank(), 0), after(x.rank(), 0);
  for (int d = 2; d < x.rank(); ++d) before[d] = w.pad[d - 2], after[d] = w.pad[d - 2];
  RawTensor mask =
      prim::pad(ones, before, after, ir::Scalar::from_double(a.count_include_pad ? 1 : 0));
  for (int d = 2; d < x.rank(); ++d) before[d] = 0, after[d] = w.pad_after[d - 2] - w.pad[d - 2];
  mask = prim::pad(mask, before, after, ir::Scalar::from_double(0));
  RawTensor count;
  for_each_offset(w.kernel, [&](const std::vector<int64_t>& k) {
    RawTensor v = window_view(mask, w, k);
    count = count.defined() ? prim::binary(BinaryFn::Add, count, v) : v;
  });
  return prim::binary(BinaryFn::Div, sum, count);
}

RawTensor adaptive_avg_pool(const char* op, const RawTensor& x, const std::vector<int64_t>& out) {
  ir::OpScope scope(op);
  const int sr = static_cast<int>(out.size());
  require_input(op, x, sr);
  RawTensor y = x;
  const int r = x.rank();
  for (int d = 0; d < sr; ++d) {
    const int64_t in = x.shape()[d + 2], o = out[d];
    if (o < 1) fail(op, absl::StrCat("output size must be >= 1, got ", o));
    // A[i, j] = 1 / |bin i| for j in bin i = [floor(i * in / o), ceil((i + 1) * in / o)).
    std::vector<double> a(static_cast<size_t>(o * in), 0.0);
    for (int64_t i = 0; i < o; ++i) {
      const int64_t s = i * in / o, e = ((i + 1) * in + o - 1) / o;
      for (int64_t j = s; j < e; ++j) a[i * in + j] = 1.0 / static_cast<double>(e - s);
    }
    // Move dim d last, multiply by A^T, move it back.
    std::vector<int> perm(r);
    for (int i = 0; i < r; ++i) perm[i] = i;
    std::swap(perm[d + 2], perm[r - 1]);
    std::vector<int64_t> mdims(r, 1);
    mdims[r - 2] = in;
    mdims[r - 1] = o;
    std::vector<double> at(a.size());
    for (int64_t i = 0; i < o; ++i)
      for (int64_t j = 0; j < in; ++j) at[j * o + i] = a[i * in + j];
    RawTensor m = constant(at, Shape(mdims), x.dtype(), x.device());
    y = prim::permute(prim::matmul(prim::permute(y, perm), m), perm);
  }
  return y;
}

RawTensor adaptive_max_pool(const char* op, const RawTensor& x, const std::vector<int64_t>& out) {
  ir::OpScope scope(op);
  const int sr = static_cast<int>(out.size());
  require_input(op, x, sr);
  RawTensor y = x;
  for (int d = 0; d < sr; ++d) {
    const int64_t in = x.shape()[d + 2], o = out[d];
    if (o < 1) fail(op, absl::StrCat("output size must be >= 1, got ", o));
    int64_t widest = 0;
    for (int64_t i = 0; i < o; ++i) {
      widest = std::max(widest, ((i + 1) * in + o - 1) / o - i * in / o);
    }
    RawTensor best;
    for (int64_t j = 0; j < widest; ++j) {
      // The j-th element of each bin, the bin's last where the bin is narrower.
      std::vector<int32_t> idx(static_cast<size_t>(o));
      for (int64_t i = 0; i < o; ++i) {
        const int64_t s = i * in / o, e = ((i + 1) * in + o - 1) / o;
        idx[i] = static_cast<int32_t>(std::min(s + j, e - 1));
      }
      RawTensor v = select(y, d + 2, prim::from_data(TensorData(idx), x.device()));
      if (!best.defined()) {
        best = v;
        continue;
      }
      best = prim::where(takes_max(v, best), v, best);
    }
    y = best;
  }
  return y;
}

}  // namespace ember::ops
