#pragma once
// Helpers of the optim tests: the test device, host copies of tensors, elementwise comparison
// against references computed in the test with plain loops on doubles, error checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "optim/optim.h"

namespace ember::optim::testing {

// The CPU, or EMBER_OPTIM_TEST_DEVICE (vulkan:0, cuda:0) to run the suite on another device.
inline Device dev() {
  static const Device d = [] {
    const char* env = std::getenv("EMBER_OPTIM_TEST_DEVICE");
    return env && *env ? Device::parse(env) : Device::cpu();
  }();
  return d;
}

template <int D, class K>
std::vector<double> host(const Tensor<D, K>& t) {
  return t.to_data().template to_vec<double>();
}

template <int D>
Tensor<D> from_host(const std::vector<double>& values, const Shape& shape) {
  return Tensor<D>::from_data(TensorData(values, shape).convert(DType::F32), dev());
}

inline void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                            double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << "element " << i;
  }
}

// Expects f() to throw ember::Error whose message contains each of `parts`.
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

}  // namespace ember::optim::testing
