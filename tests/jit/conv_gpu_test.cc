// Convolutions on the GPU test device against the CPU reference, as they are used: a residual
// conv block's training step (conv-bn-relu-conv-bn + residual, then pooling and a loss) with
// forward and backward in one flush and every output still held, fused and unfused; and the
// kernel count that shows the epilogue fused into the convolution.
#include <gtest/gtest.h>

#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::expect_same;
using testing::gpu_device;
using testing::host_uniform;

Tensor<4> batch_norm(const Tensor<4>& x, const Tensor<1>& gamma, const Tensor<1>& beta) {
  auto mean = x.mean_dim(0).mean_dim(2).mean_dim(3);
  auto centred = x - mean;
  auto var = (centred * centred).mean_dim(0).mean_dim(2).mean_dim(3);
  auto scale = gamma.reshape({1, -1, 1, 1}) / (var + 1e-5).sqrt();
  return centred * scale + beta.reshape({1, -1, 1, 1});
}

// Everything a training step of the block produces: the loss, the block's output and the
// gradients of all parameters and of the input.
std::vector<RawTensor> conv_block_step(const Device& dev, int64_t groups) {
  testing::OneFlushGuard one_flush;
  auto x = Tensor<4>::from_data(host_uniform({2, 4, 7, 6}, 1), dev).require_grad();
  auto w1 =
      Tensor<4>::from_data(host_uniform({4, 4 / groups, 3, 3}, 2, -0.5, 0.5), dev).require_grad();
  auto w2 = Tensor<4>::from_data(host_uniform({4, 4, 3, 3}, 3, -0.5, 0.5), dev).require_grad();
  auto b1 = Tensor<1>::from_data(host_uniform({4}, 4), dev).require_grad();
  auto g1 = Tensor<1>::from_data(host_uniform({4}, 5, 0.5, 1.5), dev).require_grad();
  auto g2 = Tensor<1>::from_data(host_uniform({4}, 6, 0.5, 1.5), dev).require_grad();
  auto beta = Tensor<1>::from_data(host_uniform({4}, 7), dev).require_grad();
  module::ConvOptions<2> same{{1, 1}, {1, 1}, {1, 1}, groups};
  auto h = activation::relu(batch_norm(module::conv2d(x, w1, b1, same), g1, beta));
  auto y = activation::relu(
      batch_norm(module::conv2d(h, w2, std::nullopt, {{1, 1}, {1, 1}}), g2, beta) + x);
  auto pooled = module::avg_pool2d(module::max_pool2d(y, {2, 2}), {1, 1});
  auto down = module::conv2d(pooled, w2, std::nullopt, {{2, 2}, {1, 1}, {1, 1}, 1});
  auto loss = (down * down).mean();
  Gradients grads = loss.backward();
  std::vector<RawTensor> out{loss.raw(), y.raw()};
  for (auto* p : {&w1, &w2}) out.push_back(p->grad(grads).value().raw());
  for (auto* p : {&b1, &g1, &g2, &beta}) out.push_back(p->grad(grads).value().raw());
  out.push_back(x.grad(grads).value().raw());
  return out;
}

TEST(ConvGpu, ResidualBlockTrainingStepMatchesCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (bool fused : {true, false}) {
    FusionGuard fusion(fused);
    for (int64_t groups : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "fused " << fused << " groups " << groups);
      expect_same([&](const Device& d) { return conv_block_step(d, groups); }, gpu_device(),
                  {1e-3, 1e-4});
    }
  }
}

TEST(ConvGpu, TransposedAndStridedConvolutionsMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  expect_same(
      [](const Device& dev) {
        auto x = Tensor<4>::from_data(host_uniform({1, 4, 5, 4}, 10), dev).require_grad();
        auto w = Tensor<4>::from_data(host_uniform({4, 3, 3, 2}, 11), dev).require_grad();
        auto y = module::conv_transpose2d(x, w, std::nullopt, {{2, 3}, {1, 0}, {1, 2}, {1, 1}, 2});
        auto z = module::conv3d(y.unsqueeze_dim<5>(2),
                                Tensor<5>::from_data(host_uniform({2, 6, 1, 2, 2}, 12), dev));
        Gradients grads = (z * z).sum().backward();
        return std::vector<RawTensor>{y.raw(), z.raw(), x.grad(grads).value().raw(),
                                      w.grad(grads).value().raw()};
      },
      gpu_device(), {1e-4, 1e-4});
}

// Depthwise convolutions run the direct variant, and a weight gradient over a long batch sums
// per-slice products (four 48x48 samples): both against the CPU, with gradients.
TEST(ConvGpu, DepthwiseAndSlicedWeightGradientsMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  expect_same(
      [](const Device& dev) {
        auto x = Tensor<4>::from_data(host_uniform({4, 4, 48, 48}, 30), dev).require_grad();
        auto wd = Tensor<4>::from_data(host_uniform({4, 1, 3, 3}, 31), dev).require_grad();
        auto w = Tensor<4>::from_data(host_uniform({6, 2, 3, 3}, 32), dev).require_grad();
        auto h = module::conv2d(x, wd, std::nullopt, {{2, 2}, {1, 1}, {1, 1}, 4});
        auto y = module::conv2d(x, w, std::nullopt, {{1, 1}, {1, 1}, {1, 1}, 2});
        Gradients grads = ((h * h).sum() + (y * y).mean()).backward();
        return std::vector<RawTensor>{h.raw(), x.grad(grads).value().raw(),
                                      wd.grad(grads).value().raw(), w.grad(grads).value().raw()};
      },
      gpu_device(), {1e-4, 1e-4});
}

// An empty batch and a batch of one, forward and backward.
TEST(ConvGpu, EmptyAndSingleBatchesMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (int64_t n : {0, 1}) {
    expect_same(
        [n](const Device& dev) {
          auto x = Tensor<4>::from_data(host_uniform({n, 3, 5, 4}, 40), dev).require_grad();
          auto w = Tensor<4>::from_data(host_uniform({8, 3, 3, 3}, 41), dev).require_grad();
          auto y = module::conv2d(x, w, std::nullopt, {{1, 2}, {1, 1}, {1, 1}, 1});
          Gradients grads = (y * y).sum().backward();
          return std::vector<RawTensor>{y.raw(), x.grad(grads).value().raw(),
                                        w.grad(grads).value().raw()};
        },
        gpu_device(), {1e-4, 1e-4});
  }
}

// bias + relu + residual after a convolution run in the convolution's kernel: the forward is
// one kernel (two on the CPU target), and its values match plain loops computed here.
TEST(ConvGpu, EpilogueFusesIntoTheConvolution) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = gpu_device();
  TensorData xd = host_uniform({1, 2, 4, 4}, 20), wd = host_uniform({2, 2, 1, 1}, 21);
  auto x = Tensor<4>::from_data(xd, dev);
  auto w = Tensor<4>::from_data(wd, dev);
  auto b = Tensor<1>::from_data({0.5f, -0.25f}, dev);
  ember::sync(dev);
  Stats before = stats(dev);
  auto y = activation::relu(module::conv2d(x, w, b)) + x;
  std::vector<float> got = y.to_data().to_vec<float>();
  Stats after = stats(dev);
  // The CPU target runs the convolution as its host primitive (im2col and a threaded product),
  // so there the epilogue is one kernel of its own after it.
  const int want = dev.type() == DeviceType::Cpu ? 2 : 1;
  EXPECT_EQ(after.kernels_launched - before.kernels_launched, want);
  std::vector<float> xv = xd.to_vec<float>(), wv = wd.to_vec<float>();
  const float bias[2] = {0.5f, -0.25f};
  for (int o = 0; o < 2; ++o) {
    for (int p = 0; p < 16; ++p) {
      float conv = bias[o] + wv[o * 2] * xv[p] + wv[o * 2 + 1] * xv[16 + p];
      EXPECT_NEAR(got[o * 16 + p], std::max(conv, 0.0f) + xv[o * 16 + p], 1e-5) << o << " " << p;
    }
  }
}

}  // namespace
}  // namespace ember
