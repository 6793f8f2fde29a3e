#pragma once
// Helpers shared by the frontend tests: compare a tensor's contents with expected values
// computed independently in the test (by hand or with plain loops).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ember::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Keeps forward and backward in one flush for a scope (backward() does not start the forward
// first on CUDA): for tests of what happens across the two in one plan (fusion, buffer reuse).
class OneFlushGuard {
 public:
  OneFlushGuard() : previous_(set_flush_before_backward(false)) {}
  ~OneFlushGuard() { set_flush_before_backward(previous_); }
  OneFlushGuard(const OneFlushGuard&) = delete;
  OneFlushGuard& operator=(const OneFlushGuard&) = delete;

 private:
  bool previous_;
};

// Applies `f` to each value: expected results computed in plain C++.
template <class F>
std::vector<double> map(const std::vector<double>& xs, F f) {
  std::vector<double> out;
  for (double x : xs) out.push_back(f(x));
  return out;
}

// Expects `t` to have `shape` and elements close to `expected` (row-major). NaN matches NaN.
template <int D, class K>
void expect_tensor(const Tensor<D, K>& t, const Shape& shape, const std::vector<double>& expected,
                   double tol = 1e-5) {
  TensorData d = t.to_data();
  ASSERT_EQ(d.shape(), shape) << "got shape " << d.shape().to_string();
  std::vector<double> got = d.to_vec<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i];
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], tol * std::max(1.0, std::abs(expected[i])))
          << "element " << i;
    }
  }
}

// Expects `f` to throw ember::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected ember::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const auto& p : parts) {
      EXPECT_NE(msg.find(p), std::string::npos) << "message '" << msg << "' lacks '" << p << "'";
    }
  }
}

}  // namespace ember::testing
