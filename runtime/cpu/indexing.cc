// Gather, scatter-add and sort along one axis. Indices are checked as they are read: an index
// out of range throws ember::Error naming the op, the index and the dim size.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {
namespace {

// Walks every position of `index`, calling f(index_value, x_offset_without_axis, index_offset, k)
// where k is a second operand's offset (values or output).
template <class I, class F>
void walk_index(const Array& index, const Array& x, int axis, const int64_t* other_strides,
                const char* op, F&& f) {
  std::vector<int64_t> xs = x.strides;
  xs[axis] = 0;
  const I* ip = base_ptr<I>(index);
  int64_t size = x.type.shape[axis];
  for_each_row<3>(
      index.type.shape, {index.strides.data(), xs.data(), other_strides},
      [&](auto off, int64_t n, auto st) {
        for (int64_t i = 0; i < n; ++i) {
          int64_t v = static_cast<int64_t>(ip[off[0] + i * st[0]]);
          if (v < 0 || v >= size) {
            throw Error(absl::StrCat(op, ": index ", v, " out of range for dim ", axis, " of size ",
                                     size, " (tensor ", x.type.to_string(), ")"));
          }
          f(v * x.strides[axis] + off[1] + i * st[1], off[2] + i * st[2]);
        }
      });
}

template <class F>
void dispatch_index(DType t, F&& f) {
  dispatch_dtype(t, [&](auto tag) {
    using I = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) f(tag);
  });
}

// NaN sorts after every number (before, when descending), as in PyTorch.
template <class C>
bool less_nan_last(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

}  // namespace

Array run_gather(const Array& x, int axis, const Array& index, const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(x.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = base_ptr<T>(x);
    T* op = base_ptr<T>(out);
    dispatch_index(index.type.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      walk_index<I>(index, x, axis, out.strides.data(), "gather",
                    [&](int64_t xo, int64_t oo) { op[oo] = xp[xo]; });
    });
  });
  return out;
}

Array run_scatter_add(const Array& x, int axis, const Array& index, const Array& values) {
  Array out = allocate(x.type);
  copy_into(x, out);
  dispatch_dtype(x.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      using C = Compute<T>;
      const T* vp = base_ptr<T>(values);
      T* op = base_ptr<T>(out);
      dispatch_index(index.type.dtype, [&](auto itag) {
        using I = typename decltype(itag)::type;
        walk_index<I>(index, out, axis, values.strides.data(), "scatter",
                      [&](int64_t oo, int64_t vo) {
                        op[oo] = T(static_cast<C>(op[oo]) + static_cast<C>(vp[vo]));
                      });
      });
    }
  });
  return out;
}

Array run_sort(const Array& x, const ir::SortAttrs& attrs, const TensorType& out_type) {
  Array out = allocate(out_type);
  int axis = attrs.axis;
  int64_t n = x.type.shape[axis];
  Shape lines = x.type.shape;
  lines[axis] = 1;
  dispatch_dtype(x.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = Compute<T>;
    const T* xp = base_ptr<T>(x);
    std::vector<int64_t> order(n);
    std::vector<C> keys(n);
    for_each_row<2>(
        lines, {x.strides.data(), out.strides.data()}, [&](auto off, int64_t len, auto st) {
          for (int64_t l = 0; l < len; ++l) {
            const T* line = xp + off[0] + l * st[0];
            for (int64_t i = 0; i < n; ++i) {
              keys[i] = static_cast<C>(line[i * x.strides[axis]]);
            }
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
              return attrs.descending ? less_nan_last(keys[b], keys[a])
                                      : less_nan_last(keys[a], keys[b]);
            });
            int64_t o = off[1] + l * st[1];
            dispatch_dtype(out_type.dtype, [&](auto otag) {
              using O = typename decltype(otag)::type;
              O* op = base_ptr<O>(out) + o;
              for (int64_t i = 0; i < n; ++i) {
                op[i * out.strides[axis]] = attrs.indices
                                                ? static_cast<O>(order[i])
                                                : convert<O>(line[order[i] * x.strides[axis]]);
              }
            });
          }
        });
  });
  return out;
}

}  // namespace ember::runtime::cpu
