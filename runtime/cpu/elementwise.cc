// Unary, binary, where and cast on strided, broadcast operands.
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/cpu/convert.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

// The inner loops special-case unit and zero strides so the compiler can vectorise them.
template <class Out, class In, class F>
void map1(const Array& x, Array& out, F f) {
  auto xs = broadcast_strides(x.type.shape, x.strides, out.type.shape);
  const In* xp = base_ptr<In>(x);
  Out* op = base_ptr<Out>(out);
  for_each_row<2>(out.type.shape, {out.strides.data(), xs.data()},
                  [&](auto off, int64_t n, auto st) {
                    Out* o = op + off[0];
                    const In* a = xp + off[1];
                    if (st[0] == 1 && st[1] == 1) {
                      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(a[i * st[1]]);
                    }
                  });
}

template <class Out, class A, class B, class F>
void map2(const Array& a, const Array& b, Array& out, F f) {
  auto as = broadcast_strides(a.type.shape, a.strides, out.type.shape);
  auto bs = broadcast_strides(b.type.shape, b.strides, out.type.shape);
  const A* ap = base_ptr<A>(a);
  const B* bp = base_ptr<B>(b);
  Out* op = base_ptr<Out>(out);
  for_each_row<3>(out.type.shape, {out.strides.data(), as.data(), bs.data()},
                  [&](auto off, int64_t n, auto st) {
                    Out* o = op + off[0];
                    const A* x = ap + off[1];
                    const B* y = bp + off[2];
                    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
                    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
                      const B yv = *y;
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
                    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
                      const A xv = *x;
                      for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(x[i * st[1]], y[i * st[2]]);
                    }
                  });
}

// Calls f(std::integral_constant<Fn, fn>) so the per-element function is a compile-time choice.
template <class Fn, int Count, class F, int I = 0>
void with_constant(Fn fn, F&& f) {
  if constexpr (I < Count) {
    if (static_cast<int>(fn) == I) return f(std::integral_constant<Fn, static_cast<Fn>(I)>{});
    with_constant<Fn, Count, F, I + 1>(fn, std::forward<F>(f));
  }
}

template <class T>
T sign_of(T v) {
  if constexpr (std::is_unsigned_v<T>)
    return v > 0 ? T(1) : T(0);
  else
    return static_cast<T>((T(0) < v) - (v < T(0)));
}

template <class T>
T unary_value(UnaryFn fn, T v) {
  using std::abs;
  switch (fn) {
    case UnaryFn::Neg:
      if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(v));
      } else {
        return -v;
      }
    case UnaryFn::Abs:
      if constexpr (std::is_unsigned_v<T>)
        return v;
      else if constexpr (std::is_integral_v<T>)  // the most negative value stays itself
        return v < T(0) ? static_cast<T>(-static_cast<std::make_unsigned_t<T>>(v)) : v;
      else
        return v < T(0) ? static_cast<T>(-v) : v;
    case UnaryFn::Sign:
      return sign_of(v);
    case UnaryFn::BitwiseNot:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(~v);
      break;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (fn) {
      case UnaryFn::Exp:
        return std::exp(v);
      case UnaryFn::Log:
        return std::log(v);
      case UnaryFn::Log1p:
        return std::log1p(v);
      case UnaryFn::Sqrt:
        return std::sqrt(v);
      case UnaryFn::Sin:
        return std::sin(v);
      case UnaryFn::Cos:
        return std::cos(v);
      case UnaryFn::Tan:
        return std::tan(v);
      case UnaryFn::Tanh:
        return std::tanh(v);
      case UnaryFn::Sinh:
        return std::sinh(v);
      case UnaryFn::Cosh:
        return std::cosh(v);
      case UnaryFn::Erf:
        return std::erf(v);
      case UnaryFn::Floor:
        return std::floor(v);
      case UnaryFn::Ceil:
        return std::ceil(v);
      case UnaryFn::Round:
        return std::nearbyint(v);  // half to even, as PyTorch
      case UnaryFn::Recip:
        return T(1) / v;
      default:
        break;
    }
  }
  throw Error(absl::StrCat("cpu: unary ", ir::unary_name(fn), " not defined for this dtype"));
}

template <class T>
void unary_typed(UnaryFn fn, const Array& x, Array& out) {
  using C = Compute<T>;
  if (fn == UnaryFn::IsNan || fn == UnaryFn::IsInf) {
    bool nan = fn == UnaryFn::IsNan;
    map1<bool, T>(x, out, [nan](T v) {
      double d = static_cast<double>(static_cast<C>(v));
      return nan ? std::isnan(d) : std::isinf(d);
    });
  } else if (fn == UnaryFn::LogicalNot) {
    map1<T, T>(x, out, [](T v) { return static_cast<T>(!static_cast<bool>(v)); });
  } else if constexpr (!std::is_same_v<T, bool>) {
    with_constant<UnaryFn, ir::kUnaryFnCount>(fn, [&](auto c) {
      map1<T, T>(x, out,
                 [](T v) { return T(unary_value<C>(decltype(c)::value, static_cast<C>(v))); });
    });
  }
}

[[noreturn]] void division_by_zero(BinaryFn fn) {
  throw Error(absl::StrCat(ir::binary_name(fn), ": integer division by zero"));
}

// Integers wrap (two's complement) as on the GPUs, computed in the unsigned type: signed
// overflow is undefined in C++.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // uint8/16 promote to int, whose product can overflow: multiply as at least 32-bit unsigned.
    using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(a * b);
  }
}

template <class T>
T int_pow(T base, T exp) {
  if (exp < T(0)) {
    if (base == T(1)) return T(1);
    if constexpr (std::is_signed_v<T>) {
      if (base == T(-1)) return (exp % 2 == 0) ? T(1) : T(-1);
    }
    return T(0);
  }
  T result = 1;
  while (exp > T(0)) {
    if (exp & T(1)) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

template <class T>
T binary_arith(BinaryFn fn, T a, T b) {
  switch (fn) {
    case BinaryFn::Add:
      return wrap_add(a, b);
    case BinaryFn::Sub:
      return wrap_sub(a, b);
    case BinaryFn::Mul:
      return wrap_mul(a, b);
    case BinaryFn::Max:
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      }
      return a > b ? a : b;
    case BinaryFn::Min:
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      }
      return a < b ? a : b;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (fn) {
      case BinaryFn::Div:
        return a / b;
      case BinaryFn::Rem: {  // sign follows the divisor, as PyTorch's remainder
        T r = std::fmod(a, b);
        if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
        return r;
      }
      case BinaryFn::Pow:
        return std::pow(a, b);
      default:
        break;
    }
  } else {
    switch (fn) {
      case BinaryFn::Div:  // truncates toward zero, as C++ and Rust
        if (b == T(0)) division_by_zero(fn);
        if constexpr (std::is_signed_v<T>) {
          if (b == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));
        }
        return static_cast<T>(a / b);
      case BinaryFn::Rem: {
        if (b == T(0)) division_by_zero(fn);
        if constexpr (std::is_signed_v<T>) {
          if (b == T(-1)) return T(0);
        }
        T r = static_cast<T>(a % b);
        if constexpr (std::is_signed_v<T>) {
          if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
        }
        return r;
      }
      case BinaryFn::Pow:
        return int_pow(a, b);
      case BinaryFn::BitAnd:
        return static_cast<T>(a & b);
      case BinaryFn::BitOr:
        return static_cast<T>(a | b);
      case BinaryFn::BitXor:
        return static_cast<T>(a ^ b);
      case BinaryFn::Shl: {
        if (b < T(0) || b >= T(sizeof(T) * 8)) return T(0);
        return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b);
      }
      case BinaryFn::Shr: {
        if (b < T(0)) return T(0);
        if (b >= T(sizeof(T) * 8)) return (std::is_signed_v<T> && a < T(0)) ? T(-1) : T(0);
        return static_cast<T>(a >> b);
      }
      default:
        break;
    }
  }
  throw Error(absl::StrCat("cpu: binary ", ir::binary_name(fn), " not defined for this dtype"));
}

template <class T>
bool compare(BinaryFn fn, T a, T b) {
  switch (fn) {
    case BinaryFn::Eq:
      return a == b;
    case BinaryFn::Ne:
      return a != b;
    case BinaryFn::Lt:
      return a < b;
    case BinaryFn::Le:
      return a <= b;
    case BinaryFn::Gt:
      return a > b;
    case BinaryFn::Ge:
      return a >= b;
    default:
      return false;
  }
}

template <class T>
void binary_typed(BinaryFn fn, const Array& a, const Array& b, Array& out) {
  using C = Compute<T>;
  if (ir::is_comparison(fn)) {
    with_constant<BinaryFn, ir::kBinaryFnCount>(fn, [&](auto c) {
      map2<bool, T, T>(a, b, out, [](T x, T y) {
        return compare<C>(decltype(c)::value, static_cast<C>(x), static_cast<C>(y));
      });
    });
  } else if (fn == BinaryFn::LogicalAnd || fn == BinaryFn::LogicalOr) {
    bool is_and = fn == BinaryFn::LogicalAnd;
    map2<T, T, T>(a, b, out, [is_and](T x, T y) {
      return static_cast<T>(is_and ? (static_cast<bool>(x) && static_cast<bool>(y))
                                   : (static_cast<bool>(x) || static_cast<bool>(y)));
    });
  } else if constexpr (!std::is_same_v<T, bool>) {
    with_constant<BinaryFn, ir::kBinaryFnCount>(fn, [&](auto c) {
      map2<T, T, T>(a, b, out, [](T x, T y) {
        return T(binary_arith<C>(decltype(c)::value, static_cast<C>(x), static_cast<C>(y)));
      });
    });
  }
}

}  // namespace

Array run_unary(UnaryFn fn, const Array& x, const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(x.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_typed<T>(fn, x, out);
  });
  return out;
}

Array run_binary(BinaryFn fn, const Array& a, const Array& b, const TensorType& out_type) {
  Array out = allocate(out_type);
  dispatch_dtype(a.type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_typed<T>(fn, a, b, out);
  });
  return out;
}

Array run_where(const Array& cond, const Array& a, const Array& b, const TensorType& out_type) {
  Array out = allocate(out_type);
  auto cs = broadcast_strides(cond.type.shape, cond.strides, out_type.shape);
  auto as = broadcast_strides(a.type.shape, a.strides, out_type.shape);
  auto bs = broadcast_strides(b.type.shape, b.strides, out_type.shape);
  dispatch_dtype(out_type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool* cp = base_ptr<bool>(cond);
    const T* ap = base_ptr<T>(a);
    const T* bp = base_ptr<T>(b);
    T* op = base_ptr<T>(out);
    for_each_row<4>(out_type.shape, {out.strides.data(), cs.data(), as.data(), bs.data()},
                    [&](auto off, int64_t n, auto st) {
                      for (int64_t i = 0; i < n; ++i) {
                        op[off[0] + i * st[0]] = cp[off[1] + i * st[1]] ? ap[off[2] + i * st[2]]
                                                                        : bp[off[3] + i * st[3]];
                      }
                    });
  });
  return out;
}

Array run_cast(const Array& x, DType dtype) {
  Array out = allocate({dtype, x.type.shape});
  dispatch_dtype(x.type.dtype, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    dispatch_dtype(dtype, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      map1<Out, In>(x, out, [](In v) { return convert<Out, In>(v); });
    });
  });
  return out;
}

namespace {

// Moves elements as unsigned words of their size: no conversion, any dtype.
template <class W>
void copy_words(const Shape& shape, const W* src, const int64_t* src_strides, W* dst,
                const int64_t* dst_strides) {
  for_each_row<2>(shape, {dst_strides, src_strides}, [&](auto off, int64_t n, auto st) {
    W* o = dst + off[0];
    const W* a = src + off[1];
    if (st[0] == 1 && st[1] == 1) {
      std::memcpy(o, a, n * sizeof(W));
      return;
    }
    for (int64_t i = 0; i < n; ++i) o[i * st[0]] = a[i * st[1]];
  });
}

}  // namespace

void copy_strided(const TensorType& type, const void* src, const int64_t* src_strides, void* dst,
                  const int64_t* dst_strides) {
  const Shape& s = type.shape;
  switch (dtype_size(type.dtype)) {
    case 1:
      return copy_words(s, static_cast<const uint8_t*>(src), src_strides,
                        static_cast<uint8_t*>(dst), dst_strides);
    case 2:
      return copy_words(s, static_cast<const uint16_t*>(src), src_strides,
                        static_cast<uint16_t*>(dst), dst_strides);
    case 4:
      return copy_words(s, static_cast<const uint32_t*>(src), src_strides,
                        static_cast<uint32_t*>(dst), dst_strides);
    default:
      return copy_words(s, static_cast<const uint64_t*>(src), src_strides,
                        static_cast<uint64_t*>(dst), dst_strides);
  }
}

namespace {

void copy_elements(const Array& src, void* dst, const int64_t* dst_strides) {
  copy_strided(src.type, raw_ptr(src), src.strides.data(), dst, dst_strides);
}

}  // namespace

void copy_into(const Array& src, const Array& dst) {
  copy_elements(src, raw_ptr(dst), dst.strides.data());
}

void copy_to_dense(const Array& src, void* dst) {
  auto dense = src.type.shape.contiguous_strides();
  copy_elements(src, dst, dense.data());
}

Array make_contiguous(const Array& x) {
  if (x.is_contiguous()) return x;
  Array out = allocate(x.type);
  copy_to_dense(x, base_ptr<std::byte>(out));
  return out;
}

}  // namespace ember::runtime::cpu
