#pragma once
// Maps a runtime DType to a C++ element type once per kernel call (never per element).
#include <Eigen/Core>
#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"
#include "ir/error.h"

namespace ember::runtime::cpu {

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) for the element type of `t`.
template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::F32:
      return f(Tag<float>{});
    case DType::F16:
      return f(Tag<Eigen::half>{});
    case DType::BF16:
      return f(Tag<Eigen::bfloat16>{});
    case DType::F64:
      return f(Tag<double>{});
    case DType::I32:
      return f(Tag<int32_t>{});
    case DType::I64:
      return f(Tag<int64_t>{});
    case DType::U8:
      return f(Tag<uint8_t>{});
    case DType::Bool:
      return f(Tag<bool>{});
  }
  throw Error("cpu: unknown dtype");
}

template <class T>
inline constexpr bool kIsHalf =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// The type arithmetic is done in: f16/bf16 compute in f32, everything else in itself.
template <class T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

template <class T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsHalf<T>;

}  // namespace ember::runtime::cpu
