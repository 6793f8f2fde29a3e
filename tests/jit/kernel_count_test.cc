// Fusion of the canonical patterns, read from the stats API on Vulkan.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/jit/vulkan_util.h"

namespace ember {
namespace {

using testing::host_uniform;

// Kernels launched (and compiles) by running `f` once with its inputs already on the device.
struct Count {
  int64_t kernels, compiles, fused;
};

template <class F>
Count count_kernels(const Device& dev, F&& f) {
  sync(dev);
  reset_stats(dev);
  f();
  sync(dev);
  Stats s = stats(dev);
  return {s.kernels_launched, s.compiles, s.ops_fused};
}

TEST(KernelCount, GeluIsOneKernel) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto x = Tensor<2>::from_data(host_uniform({64, 33}, 1), dev);
  Tensor<2> y;
  // The Burn README's custom GELU, written with basic ops.
  Count c = count_kernels(dev, [&] { y = x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0; });
  EXPECT_EQ(c.kernels, 1);
  EXPECT_GE(c.fused, 5);
}

TEST(KernelCount, SoftmaxOverRowsIsOneKernel) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto x = Tensor<2>::from_data(host_uniform({16, 100}, 2), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] {
    auto e = (x - x.max_dim(1)).exp();
    y = e / e.sum_dim(1);
  });
  EXPECT_EQ(c.kernels, 1);
}

TEST(KernelCount, LayerNormAtMostTwoKernels) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto x = Tensor<2>::from_data(host_uniform({8, 64}, 3), dev);
  auto w = Tensor<2>::from_data(host_uniform({1, 64}, 4), dev);
  auto b = Tensor<2>::from_data(host_uniform({1, 64}, 5), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] {
    auto mean = x.mean_dim(1);
    auto centered = x - mean;
    auto var = (centered * centered).mean_dim(1);
    y = centered / (var + 1e-5).sqrt() * w + b;
  });
  EXPECT_LE(c.kernels, 2);
}

TEST(KernelCount, AdamUpdateIsOneKernelWithThreeOutputs) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto p = Tensor<1>::from_data(host_uniform({1000}, 6), dev);
  auto g = Tensor<1>::from_data(host_uniform({1000}, 7), dev);
  auto m = Tensor<1>::from_data(host_uniform({1000}, 8), dev);
  auto v = Tensor<1>::from_data(host_uniform({1000}, 9, 0.0, 1.0), dev);
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8, t = 3;
  Count c = count_kernels(dev, [&] {
    m = m * b1 + g * (1 - b1);
    v = v * b2 + g * g * (1 - b2);
    auto m_hat = m / (1 - std::pow(b1, t));
    auto v_hat = v / (1 - std::pow(b2, t));
    p = p - m_hat * lr / (v_hat.sqrt() + eps);
  });
  EXPECT_EQ(c.kernels, 1);
}

TEST(KernelCount, MatmulBiasReluIsOneKernel) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto x = Tensor<2>::from_data(host_uniform({20, 30}, 10), dev);
  auto w = Tensor<2>::from_data(host_uniform({30, 17}, 11), dev);
  auto b = Tensor<2>::from_data(host_uniform({1, 17}, 12), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] { y = activation::relu(x.matmul(w) + b); });
  EXPECT_EQ(c.kernels, 1);
}

TEST(KernelCount, RepeatedStepCompilesNothingNew) {
  EMBER_REQUIRE_VULKAN();
  Device dev = Device::vulkan(0);
  auto x = Tensor<2>::from_data(host_uniform({8, 16}, 13), dev);
  auto w = Tensor<2>::from_data(host_uniform({16, 16}, 14), dev);
  auto step = [&] {
    auto h = activation::relu(x.matmul(w));
    x = activation::softmax(h, 1) * 0.5 + x * 0.5;
  };
  count_kernels(dev, step);  // first step: may compile
  Count c = count_kernels(dev, step);
  EXPECT_EQ(c.compiles, 0);
  EXPECT_GT(c.kernels, 0);
}

}  // namespace
}  // namespace ember
