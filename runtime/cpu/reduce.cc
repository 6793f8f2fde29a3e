// Reductions over one axis. Floats accumulate in f64 and ints in i64 so the reference is at least
// as accurate as any backend it checks. Max/min propagate NaN; arg reductions return the first
// index of the extreme value (a NaN counts as the extreme, as in PyTorch).
#include <cmath>

#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {
namespace {

using ir::ReduceFn;

template <class T>
using Acc = std::conditional_t<kIsFloating<T>, double,
                               std::conditional_t<std::is_same_v<T, bool>, bool, int64_t>>;

template <class A>
bool is_nan_value(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return std::isnan(v);
  else
    return false;
}

// Reduces n values read with `stride` from p.
template <class T>
Acc<T> reduce_values(ReduceFn fn, const T* p, int64_t n, int64_t stride) {
  using A = Acc<T>;
  auto at = [&](int64_t i) { return static_cast<A>(static_cast<Compute<T>>(p[i * stride])); };
  switch (fn) {
    case ReduceFn::Sum: {
      A acc = A(0);
      for (int64_t i = 0; i < n; ++i) acc = static_cast<A>(acc + at(i));
      return acc;
    }
    case ReduceFn::Prod: {
      A acc = A(1);
      for (int64_t i = 0; i < n; ++i) acc = static_cast<A>(acc * at(i));
      return acc;
    }
    default: {
      bool is_max = fn == ReduceFn::Max;
      A best = at(0);
      for (int64_t i = 1; i < n && !is_nan_value(best); ++i) {
        A v = at(i);
        if (is_nan_value(v) || (is_max ? v > best : v < best)) best = v;
      }
      return best;
    }
  }
}

template <class T>
int64_t arg_reduce(ReduceFn fn, const T* p, int64_t n, int64_t stride) {
  using A = Acc<T>;
  bool is_max = fn == ReduceFn::ArgMax;
  auto at = [&](int64_t i) { return static_cast<A>(static_cast<Compute<T>>(p[i * stride])); };
  int64_t best_i = 0;
  A best = at(0);
  for (int64_t i = 1; i < n && !is_nan_value(best); ++i) {
    A v = at(i);
    if (is_nan_value(v) || (is_max ? v > best : v < best)) {
      best = v;
      best_i = i;
    }
  }
  return best_i;
}

}  // namespace

Array run_reduce(ReduceFn fn, int axis, const Array& x, const TensorType& out_type) {
  Array out = allocate(out_type);
  int64_t n = x.type.shape[axis];
  int64_t stride = x.strides[axis];
  bool arg = fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin;
  dispatch_dtype(x.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = base_ptr<T>(x);
    dispatch_dtype(out_type.dtype, [&](auto out_tag) {
      using O = typename decltype(out_tag)::type;
      O* op = base_ptr<O>(out);
      for_each_row<2>(out_type.shape, {out.strides.data(), x.strides.data()},
                      [&](auto off, int64_t len, auto st) {
                        for (int64_t i = 0; i < len; ++i) {
                          const T* p = xp + off[1] + i * st[1];
                          O& o = op[off[0] + i * st[0]];
                          if (arg) {
                            o = static_cast<O>(arg_reduce<T>(fn, p, n, stride));
                          } else {
                            o = convert<O>(reduce_values<T>(fn, p, n, stride));
                          }
                        }
                      });
    });
  });
  return out;
}

}  // namespace ember::runtime::cpu
