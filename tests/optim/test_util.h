#pragma once
// Helpers of the optim tests: the test device and uploads; host copies, elementwise comparison
// and error checks are the nn tests' (tests/nn/test_util.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "optim/optim.h"
#include "tests/nn/test_util.h"

namespace ember::optim::testing {

// The CPU, or EMBER_OPTIM_TEST_DEVICE (vulkan:0, cuda:0) to run the suite on another device.
inline Device dev() {
  static const Device d = [] {
    const char* env = std::getenv("EMBER_OPTIM_TEST_DEVICE");
    return env && *env ? ::ember::testing::parse_test_device(env) : Device::cpu();
  }();
  return d;
}

using nn::testing::expect_error;
using nn::testing::expect_near_all;
using nn::testing::host;

template <int D>
Tensor<D> from_host(const std::vector<double>& values, const Shape& shape) {
  return Tensor<D>::from_data(TensorData(values, shape).convert(DType::F32), dev());
}

}  // namespace ember::optim::testing
