// The conv family's tensor-core tile (kernels/conv/conv_mma.cuh; CUDA sm_80+): f16/bf16 always,
// f32 through TF32 when set_matmul_precision(High) asks for it. Every tile (forced through
// EMBER_CONV_MMA) against the CPU on ragged edges (output pixels not a multiple of the tile's
// rows, a partial last k-tile), padding, stride, dilation, groups, a 1-d convolution and a fused
// bias and relu; then a training step whose input gradient (a transposed convolution, its
// flipped weight stored for the tile) runs on the tile too. stats().mma_launches shows that the
// tile ran. The exact f32 tile (conv_simt.cuh) against the CPU too. Skipped where the test device
// has no tensor cores (Vulkan, CI's lavapipe).
#include <string>

#include "kernels/conv/tensor_core.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

// The CPU/GPU comparison; returns how many tensor-core kernels the GPU run launched.
int64_t mma_launches_of(const testing::Program& p, double rtol, double atol) {
  const int64_t before = stats(testing::gpu_device()).mma_launches;
  testing::expect_same(p, testing::gpu_device(), rtol, atol);
  return stats(testing::gpu_device()).mma_launches - before;
}

template <size_t R>
Tensor<R> uniform(const Shape& s, uint32_t seed, DType t, const Device& dev, double lo = -1,
                  double hi = 1) {
  return Tensor<R>::from_data(testing::host_uniform(s, seed, lo, hi).convert(t), dev);
}

// Three convolutions in dtype t: 3x3 same-padded with a bias and relu (3 x 13 x 11 = 429 output
// pixels; K = 24 * 9 = 216, a partial last k-tile), two groups of 16 outputs with stride 2,
// dilation 2 and uneven padding of the rows, and a 1-d one (kernel 5, pad 2, stride 3). With
// `train`, the first one's loss and its input and weight gradients too.
std::vector<RawTensor> three_convolutions(const Device& dev, DType t, bool train) {
  auto x = uniform<4>({3, 24, 13, 11}, 1, t, dev);
  auto w = uniform<4>({40, 24, 3, 3}, 2, t, dev, -0.3, 0.3);
  if (train) x = x.require_grad(), w = w.require_grad();
  auto bias = uniform<1>({40}, 3, t, dev);
  auto same = activation::relu(module::conv2d(x, w, bias, {{1, 1}, {1, 1}}));
  auto xg = uniform<4>({2, 32, 15, 17}, 4, t, dev);
  auto wg = uniform<4>({32, 16, 3, 3}, 5, t, dev, -0.3, 0.3);
  auto grouped = module::conv2d(xg, wg, std::nullopt, {{2, 2}, {2, 1}, {2, 2}, 2});
  auto x1 = uniform<3>({4, 16, 37}, 6, t, dev);
  auto w1 = uniform<3>({24, 16, 5}, 7, t, dev, -0.3, 0.3);
  auto one = module::conv1d(x1, w1, std::nullopt, {{3}, {2}});
  std::vector<RawTensor> out{same.raw(), grouped.raw(), one.raw()};
  if (!train) return out;
  auto loss = (same * same).mean();
  Gradients grads = loss.backward();
  for (const RawTensor& r : {loss.raw(), x.grad(grads).value().raw(), w.grad(grads).value().raw()})
    out.push_back(r);
  return out;
}

class ConvMmaTiles : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    setenv("EMBER_CONV_MMA", std::to_string(GetParam()).c_str(), 1);
    saved_ = matmul_precision();
    set_matmul_precision(MatmulPrecision::High);
  }
  void TearDown() override {
    unsetenv("EMBER_CONV_MMA");
    set_matmul_precision(saved_);
  }
  MatmulPrecision saved_ = MatmulPrecision::Highest;
};

TEST_P(ConvMmaTiles, PaddingStrideDilationGroupsAndOneDim) {
  EMBER_REQUIRE_TENSOR_CORES();
  for (DType t : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtype_name(t));
    const int64_t n = mma_launches_of(
        [t](const Device& dev) { return three_convolutions(dev, t, false); }, 3e-2, 1e-1);
    EXPECT_EQ(n, 3);
  }
}

// The tensor-core tiles (the last three are exact f32's: ConvSimtTile).
INSTANTIATE_TEST_SUITE_P(Tiles, ConvMmaTiles, ::testing::Range(1, jit::kConvSimtTile),
                         [](const auto& info) { return "T" + std::to_string(info.param); });

// A bf16 training step (forward and backward in one flush, the output still held): the forward
// and the input gradient run on the tile; the weight gradient wherever the family puts it.
TEST(ConvMma, TrainingStepMatchesCpu) {
  EMBER_REQUIRE_TENSOR_CORES();
  const int64_t n = mma_launches_of(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto x = uniform<4>({2, 32, 12, 10}, 11, DType::BF16, dev).require_grad();
        auto w = uniform<4>({48, 32, 3, 3}, 12, DType::BF16, dev, -0.2, 0.2).require_grad();
        auto y = activation::relu(module::conv2d(x, w, std::nullopt, {{1, 1}, {1, 1}}));
        auto loss = (y * y).mean();
        Gradients grads = loss.backward();
        return {loss.raw(), y.raw(), x.grad(grads).value().raw(), w.grad(grads).value().raw()};
      },
      3e-2, 1e-1);
  EXPECT_GE(n, 2) << "the forward and the input gradient";
}

// Exact f32 (no TF32) runs the SIMT tiles (conv_simt.cuh): the same convolutions and a training
// step against the CPU at f32 tolerances, as chosen (these small problems take the SIMT
// template), without the tiles (EMBER_CONV_MMA=0), and with each f32 tile forced: 10, 11 and 12
// (K = 216 and 144 are 14 and 9 k-tiles over four groups in 11, over two in 12, some groups with
// one k-tile fewer).
TEST(ConvSimtTile, ExactF32MatchesCpu) {
  EMBER_REQUIRE_TENSOR_CORES();
  auto program = [](const Device& dev) { return three_convolutions(dev, DType::F32, true); };
  for (const char* mode : {"-1", "0", "10", "11", "12"}) {
    SCOPED_TRACE(mode);
    setenv("EMBER_CONV_MMA", mode, 1);
    testing::expect_same(program, testing::gpu_device(), 1e-4, 1e-4);
  }
  unsetenv("EMBER_CONV_MMA");
}

}  // namespace
}  // namespace ember
