// Split-K (EMBER_SPLIT_K=S): an f32 matmul computed as partial products over parts of K, then
// summed, on small problems (edges, batches with broadcasting, transposed views, fused
// epilogues, gradients) checked against the CPU. Nothing is split unless asked.
#include "kernels/matmul/split_k.h"

#include <cstdlib>
#include <string>

#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class SplitK : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { setenv("EMBER_SPLIT_K", std::to_string(GetParam()).c_str(), 1); }
  void TearDown() override { unsetenv("EMBER_SPLIT_K"); }
};

TEST_P(SplitK, MatmulsWithEpiloguesViewsAndBatches) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({37, 64}, 81), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({64, 45}, 82), dev);
        auto bias = Tensor<2>::from_data(testing::host_uniform({1, 45}, 83), dev);
        auto at = Tensor<2>::from_data(testing::host_uniform({64, 37}, 84), dev);
        auto x = Tensor<3>::from_data(testing::host_uniform({3, 5, 32}, 85), dev);
        auto w = Tensor<3>::from_data(testing::host_uniform({1, 32, 7}, 86), dev);
        return {activation::relu(a.matmul(b) + bias).raw(), at.transpose().matmul(b).raw(),
                x.matmul(w).raw()};
      },
      1e-4, 1e-4);
}

TEST_P(SplitK, WeightGradients) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<2>::from_data(testing::host_uniform({64, 24}, 87), dev);
        auto w = Tensor<2>::from_data(testing::host_uniform({24, 16}, 88), dev).require_grad();
        auto loss = activation::relu(x.matmul(w)).sum();
        Gradients g = loss.backward();
        return {w.grad(g).value().raw(), loss.raw()};
      },
      testing::gpu_device(), 1e-4, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Parts, SplitK, ::testing::Values(2, 4, 16),
                         [](const auto& info) { return "S" + std::to_string(info.param); });

// The parts of an f32 [m, k] x [k, n] matmul on the GPU device.
int parts_for(int64_t m, int64_t k, int64_t n) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {m, k}}), b.input(1, {DType::F32, {k, n}}));
  return jit::split_k_parts(g, mm, detail::backend_for(testing::gpu_device()));
}

TEST(SplitKRequest, OnlyWhenAskedAndWhenKDivides) {
  EMBER_REQUIRE_GPU_DEVICE();
  unsetenv("EMBER_SPLIT_K");
  EXPECT_EQ(parts_for(1024, 16384, 1024), 1);
  for (const char* bad : {"3", "32", "0", "x"}) {
    setenv("EMBER_SPLIT_K", bad, 1);
    EXPECT_EQ(parts_for(1024, 16384, 1024), 1) << bad;
  }
  setenv("EMBER_SPLIT_K", "8", 1);
  EXPECT_EQ(parts_for(1024, 16384, 1024), 8);
  EXPECT_EQ(parts_for(64, 1001, 64), 1) << "K not divisible";
  unsetenv("EMBER_SPLIT_K");
}

// The parts of an f32 weight gradient x^T dy, x [k, m] read transposed, dy [k, n].
int weight_gradient_parts(int64_t m, int64_t k, int64_t n) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId x = b.input(0, {DType::F32, {k, m}});
  ir::ValueId mm = b.matmul(b.permute(x, {1, 0}), b.input(1, {DType::F32, {k, n}}));
  return jit::split_k_parts(g, mm, detail::backend_for(testing::gpu_device()));
}

// Unasked, an f32 weight gradient with a very long K splits where its tiles leave most compute
// units idle (an LSTM's over 16384 steps and rows), until they fill the units once; with enough
// tiles, a short K, plain operands or EMBER_AUTO_SPLIT_K=0 it stays whole.
TEST(SplitKAuto, LongWeightGradientsOnDevicesThatCountTheirUnits) {
  EMBER_REQUIRE_GPU_DEVICE();
  unsetenv("EMBER_SPLIT_K");
  const uint32_t units = detail::backend_for(testing::gpu_device()).compute_units();
  EMBER_SKIP_UNLESS(units >= 128, "the device reports at least 128 compute units (CUDA)");
  const int parts = weight_gradient_parts(512, 16384, 2048);  // 64 tiles
  EXPECT_GE(parts, 2);
  EXPECT_GE(64 * parts, static_cast<int>(units));
  EXPECT_LT(32 * parts, static_cast<int>(units)) << "more parts than filling the units once";
  EXPECT_EQ(weight_gradient_parts(512, 4096, 2048), 1) << "K under 8192";
  EXPECT_EQ(weight_gradient_parts(2048, 16384, 2048), 1) << "256 tiles fill the device";
  EXPECT_EQ(parts_for(512, 16384, 2048), 1) << "a plain A";
  setenv("EMBER_AUTO_SPLIT_K", "0", 1);
  EXPECT_EQ(weight_gradient_parts(512, 16384, 2048), 1);
  unsetenv("EMBER_AUTO_SPLIT_K");
}

}  // namespace
}  // namespace ember
