// The tensor-core matmul template (CUDA, sm_80+): f16 and bf16 always, f32 through TF32 only
// when set_matmul_precision(High) asks for it. Checked against the CPU on ragged edges, several
// pipeline stages with a partial last k-tile, every operand layout, broadcast batches and fused
// epilogues; stats().mma_launches shows which template ran. Skipped where the test device has
// no tensor cores (Vulkan, CI's lavapipe).
#include "frontend/detail/stream.h"
#include "kernels/matmul/precision.h"
#include "kernels/matmul/tiles.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

// Runs the CPU/GPU comparison and returns how many tensor-core kernels the GPU run launched.
int64_t mma_launches_of(const testing::Program& p, double rtol, double atol) {
  int64_t before = stats(testing::gpu_device()).mma_launches;
  testing::expect_same(p, testing::gpu_device(), rtol, atol);
  return stats(testing::gpu_device()).mma_launches - before;
}

class MatmulMma : public ::testing::TestWithParam<DType> {};

TEST_P(MatmulMma, RaggedEdgesPartialKTileAndEpilogue) {
  EMBER_REQUIRE_TENSOR_CORES();
  DType t = GetParam();
  int64_t n = mma_launches_of(
      [t](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({130, 264}, 81).convert(t), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({264, 200}, 82).convert(t), dev);
        auto bias = Tensor<2>::from_data(testing::host_uniform({1, 200}, 83).convert(t), dev);
        return {activation::gelu(a.matmul(b) + bias).raw(), a.matmul(b).raw()};
      },
      3e-2, 3e-1);
  EXPECT_GE(n, 1);
}

TEST_P(MatmulMma, EveryOperandLayoutAndBroadcastBatch) {
  EMBER_REQUIRE_TENSOR_CORES();
  DType t = GetParam();
  int64_t n = mma_launches_of(
      [t](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<3>::from_data(testing::host_uniform({3, 40, 72}, 84).convert(t), dev);
        auto w = Tensor<3>::from_data(testing::host_uniform({1, 72, 136}, 85).convert(t), dev);
        auto g = Tensor<3>::from_data(testing::host_uniform({3, 40, 136}, 86).convert(t), dev);
        std::vector<RawTensor> out;
        out.push_back(a.matmul(w).raw());                                  // A, B
        out.push_back(g.matmul(w.swap_dims(1, 2)).raw());                  // A, B^T
        out.push_back(a.swap_dims(1, 2).matmul(g).raw());                  // A^T, B
        out.push_back(w.swap_dims(1, 2).matmul(a.swap_dims(1, 2)).raw());  // A^T, B^T
        return out;
      },
      3e-2, 3e-1);
  EXPECT_GE(n, 4);
}

// What a transformer feeds its products: a [batch, seq, d] activation reshaped to rows (a view
// the tile reads in place), a weight's transpose reshaped, and attention's heads merged back
// (a permute then a reshape: no strided view, so it is stored first). All on tensor cores.
TEST_P(MatmulMma, ReshapedAndMergedHeadOperands) {
  EMBER_REQUIRE_TENSOR_CORES();
  DType t = GetParam();
  int64_t n = mma_launches_of(
      [t](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<3>::from_data(testing::host_uniform({3, 40, 64}, 87).convert(t), dev);
        auto w = Tensor<2>::from_data(testing::host_uniform({64, 48}, 88).convert(t), dev);
        auto heads =
            Tensor<4>::from_data(testing::host_uniform({3, 4, 40, 16}, 89).convert(t), dev);
        std::vector<RawTensor> out;
        out.push_back(x.reshape({120, 64}).matmul(w).raw());
        out.push_back(x.reshape({120, 64}).swap_dims(0, 1).matmul(x.reshape({120, 64})).raw());
        auto merged = heads.swap_dims(1, 2).reshape({120, 64});
        out.push_back(merged.matmul(w).raw());
        out.push_back(x.narrow(1, 8, 32).reshape({3, 32, 64}).matmul(w.reshape({1, 64, 48})).raw());
        return out;
      },
      3e-2, 3e-1);
  EXPECT_GE(n, 4);
}

// A weight gradient (few output tiles, long K) splits itself over K on tensor cores: the parts
// leave the kernel in f32 and are summed in f32. Same values as the CPU, and as the whole
// product (EMBER_AUTO_SPLIT_K=0), to half precision.
TEST_P(MatmulMma, WeightGradientSplitsOverK) {
  EMBER_REQUIRE_TENSOR_CORES();
  DType t = GetParam();
  auto program = [t](const Device& dev) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({8192, 96}, 90, -1, 1).convert(t), dev);
    auto dy = Tensor<2>::from_data(testing::host_uniform({8192, 80}, 91, -1, 1).convert(t), dev);
    return {x.swap_dims(0, 1).matmul(dy).raw()};
  };
  int64_t n = mma_launches_of(program, 2e-2, 5e-1);
  EXPECT_GE(n, 1);
  Device dev = testing::gpu_device();
  sync(dev);
  const int64_t before = stats(dev).kernels_launched;
  TensorData split = Tensor<2>(program(dev)[0]).to_data().convert(DType::F32);
  EXPECT_GE(stats(dev).kernels_launched - before, 2) << "the parts, then their sum";
  const char* saved = std::getenv("EMBER_AUTO_SPLIT_K");
  const std::string kept = saved ? saved : "";
  setenv("EMBER_AUTO_SPLIT_K", "0", 1);
  TensorData whole = Tensor<2>(program(dev)[0]).to_data().convert(DType::F32);
  if (saved) {
    setenv("EMBER_AUTO_SPLIT_K", kept.c_str(), 1);
  } else {
    unsetenv("EMBER_AUTO_SPLIT_K");
  }
  split.assert_approx_eq(whole, {2e-2, 5e-1});
}

INSTANTIATE_TEST_SUITE_P(HalfTypes, MatmulMma, ::testing::Values(DType::F16, DType::BF16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// Every tile shape (forced through EMBER_MMA_TILE) on every operand layout, bf16 and TF32; the
// wgmma tiles run a K-major A in bf16 and take a mma.sync tile for the rest.
class MatmulMmaTiles : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { setenv("EMBER_MMA_TILE", std::to_string(GetParam()).c_str(), 1); }
  void TearDown() override { unsetenv("EMBER_MMA_TILE"); }
};

TEST_P(MatmulMmaTiles, EveryLayoutInBf16AndTf32) {
  EMBER_REQUIRE_TENSOR_CORES();
  MatmulPrecision saved = matmul_precision();
  set_matmul_precision(MatmulPrecision::High);
  for (DType t : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtype_name(t));
    int64_t n = mma_launches_of(
        [t](const Device& dev) -> std::vector<RawTensor> {
          // K = 520: nine k-tiles of 64 bf16 (the last partial) wrap every tile's stage ring.
          auto a = Tensor<2>::from_data(testing::host_uniform({300, 520}, 91).convert(t), dev);
          auto b = Tensor<2>::from_data(testing::host_uniform({520, 264}, 92).convert(t), dev);
          return {a.matmul(b).raw(), a.swap_dims(0, 1).matmul(a).raw(),
                  b.matmul(b.swap_dims(0, 1)).raw()};
        },
        3e-2, 3e-1);
    EXPECT_EQ(n, 3);
  }
  set_matmul_precision(saved);
}

INSTANTIATE_TEST_SUITE_P(Tiles, MatmulMmaTiles, ::testing::Range(1, jit::kMmaTileCount + 1),
                         [](const auto& info) { return "T" + std::to_string(info.param); });

// Hopper's 8-warp wgmma tiles read a single matrix's operands through tensor maps (the copy
// engine): windows of wider matrices (an offset, a row stride beyond the row), B both N-major
// and K-major, and a K of 17 k-tiles (33 in TF32) that wraps the four-stage ring four (eight)
// times. In TF32 an N-major B runs the tile that swaps the operands' roles (wgmma_tf32.cuh), with
// the fused relu on its transposed accumulators.
class MatmulMmaTma : public ::testing::TestWithParam<DType> {};

TEST_P(MatmulMmaTma, WindowsOfWiderMatricesAndLongK) {
  EMBER_REQUIRE_TENSOR_CORES();
  MatmulPrecision saved = matmul_precision();
  set_matmul_precision(MatmulPrecision::High);
  const DType t = GetParam();
  setenv("EMBER_MMA_TILE", "10", 1);
  int64_t n = mma_launches_of(
      [t](const Device& dev) -> std::vector<RawTensor> {
        auto wide = [&](const Shape& shape, uint32_t seed) {
          return Tensor<2>::from_data(testing::host_uniform(shape, seed).convert(t), dev);
        };
        auto a = wide({136, 1096}, 93).narrow(1, 8, 1040);
        auto b = wide({1040, 272}, 94).narrow(1, 16, 200);
        auto bt = wide({200, 1048}, 95).narrow(1, 8, 1040).swap_dims(0, 1);
        return {activation::relu(a.matmul(b)).raw(), a.matmul(bt).raw()};
      },
      3e-2, 3e-1);
  unsetenv("EMBER_MMA_TILE");
  set_matmul_precision(saved);
  EXPECT_EQ(n, 2);
}

INSTANTIATE_TEST_SUITE_P(Types, MatmulMmaTma, ::testing::Values(DType::BF16, DType::F32),
                         [](const auto& info) {
                           return info.param == DType::F32 ? std::string("tf32")
                                                           : std::string(dtype_name(info.param));
                         });

TEST(MatmulMmaFallback, UnalignedRowsRunTheSimtTemplate) {
  EMBER_REQUIRE_TENSOR_CORES();
  int64_t n = mma_launches_of(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a =
            Tensor<2>::from_data(testing::host_uniform({20, 33}, 87).convert(DType::BF16), dev);
        auto b =
            Tensor<2>::from_data(testing::host_uniform({33, 24}, 88).convert(DType::BF16), dev);
        return {a.matmul(b).raw()};
      },
      3e-2, 3e-1);
  EXPECT_EQ(n, 0) << "K = 33 bf16 rows are not 16-byte aligned";
}

class PrecisionGuard {
 public:
  explicit PrecisionGuard(MatmulPrecision p) : saved_(matmul_precision()) {
    set_matmul_precision(p);
  }
  ~PrecisionGuard() { set_matmul_precision(saved_); }

 private:
  MatmulPrecision saved_;
};

testing::Program f32_matmul() {
  return [](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<2>::from_data(testing::host_uniform({256, 264}, 89), dev);
    auto b = Tensor<2>::from_data(testing::host_uniform({264, 136}, 90), dev);
    return {(a.matmul(b) * 0.5).raw(), a.swap_dims(0, 1).matmul(a).raw()};
  };
}

TEST(MatmulTf32, HighestKeepsF32MatmulsExact) {
  EMBER_REQUIRE_TENSOR_CORES();
  PrecisionGuard p(MatmulPrecision::Highest);
  EXPECT_EQ(mma_launches_of(f32_matmul(), 1e-4, 1e-4), 0);
}

TEST(MatmulTf32, HighRunsF32MatmulsOnTensorCores) {
  EMBER_REQUIRE_TENSOR_CORES();
  PrecisionGuard p(MatmulPrecision::High);
  EXPECT_EQ(matmul_precision(), MatmulPrecision::High);
  // TF32 keeps 10 mantissa bits of each input: errors of ~1e-3 relative per product.
  EXPECT_EQ(mma_launches_of(f32_matmul(), 1e-2, 5e-2), 2);
}

// The TF32 tile for an N-major B over many tiles, ragged in M, N and K (seven k-tiles, the last
// of 8: every stage ring wraps), every 8-warp tile, with a fused bias and relu stored from the
// transposed accumulators. Its clusters pair block columns: 31 of them leave the last cluster's
// second tile empty.
TEST(MatmulTf32, SwappedTilesOverRaggedEdges) {
  EMBER_REQUIRE_TENSOR_CORES();
  PrecisionGuard p(MatmulPrecision::High);
  for (const char* tile : {"10", "11", "12"}) {
    SCOPED_TRACE(tile);
    setenv("EMBER_MMA_TILE", tile, 1);
    int64_t n = mma_launches_of(
        [](const Device& dev) -> std::vector<RawTensor> {
          auto a = Tensor<2>::from_data(testing::host_uniform({2600, 200}, 96), dev);
          auto b = Tensor<2>::from_data(testing::host_uniform({200, 3864}, 97), dev);
          auto bias = Tensor<2>::from_data(testing::host_uniform({1, 3864}, 98), dev);
          return {activation::relu(a.matmul(b) + bias).raw()};
        },
        3e-2, 3e-1);
    unsetenv("EMBER_MMA_TILE");
    EXPECT_EQ(n, 1);
  }
}

}  // namespace
}  // namespace ember
