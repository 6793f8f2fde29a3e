#pragma once
// The closed forms make_fixtures.py fills the fixtures with, computed here independently.
#include <cmath>
#include <cstdint>
#include <vector>

namespace ember::record::testing {

// Element i of formula tensor k.
inline double formula_value(int64_t i, int k) {
  return std::sin(0.37 * static_cast<double>(i) + k) * (1 + k / 8.0);
}

inline std::vector<double> formula(int64_t n, int k) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = formula_value(i, k);
  return v;
}

// What the values become in f32 (the fixtures round once, from double).
inline std::vector<double> as_f32(std::vector<double> v) {
  for (double& x : v) x = static_cast<float>(x);
  return v;
}

}  // namespace ember::record::testing
