#pragma once
// Element conversion with defined results where a plain static_cast would be undefined
// (float -> small unsigned, anything -> bool).
#include <cmath>
#include <cstdint>

#include "runtime/cpu/dispatch.h"

namespace ember::runtime::cpu {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<Compute<From>>(v) != Compute<From>(0);
  } else if constexpr (kIsFloating<From> && !kIsFloating<To>) {
    double d = static_cast<double>(static_cast<Compute<From>>(v));
    if (!std::isfinite(d)) return To(0);
    return static_cast<To>(static_cast<int64_t>(d));
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(static_cast<Compute<From>>(v)));
  } else {
    return static_cast<To>(static_cast<Compute<From>>(v));
  }
}

}  // namespace ember::runtime::cpu
