#pragma once
// Element conversion with defined results where a plain static_cast would be undefined
// (float -> small unsigned, anything -> bool).
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/cpu/dispatch.h"

namespace ember::runtime::cpu {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<Compute<From>>(v) != Compute<From>(0);
  } else if constexpr (kIsFloating<From> && !kIsFloating<To>) {
    // NaN is 0; other values truncate toward zero and saturate to To's range (+-inf to its
    // ends), as the jit's kernels do (Emitter::saturating_float_to_int).
    double d = static_cast<double>(static_cast<Compute<From>>(v));
    if (std::isnan(d)) return To(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (d <= lo) return std::numeric_limits<To>::min();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(static_cast<Compute<From>>(v)));
  } else {
    return static_cast<To>(static_cast<Compute<From>>(v));
  }
}

}  // namespace ember::runtime::cpu
