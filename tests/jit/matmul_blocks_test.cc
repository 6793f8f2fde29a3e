// The matmul template's per-thread blocks (1, 2, 4, 8 outputs squared; 16: CUDA's f32 vector
// tile) with one or two pipeline
// stages, each forced through EMBER_MATMUL_BLOCK and EMBER_MATMUL_STAGES on small problems: edges
// that are not multiples of the block tile, batches with broadcasting, transposed-view operands,
// fused prologues and epilogues, half precision.
#include <cstdlib>
#include <string>
#include <tuple>

#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "kernels/matmul/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class MatmulBlocks : public ::testing::TestWithParam<std::tuple<int, int>> {
 protected:
  void SetUp() override {
    // Blocks 16 and 17 are CUDA's f32 vector tiles (jit::is_vector_tile); no other backend has
    // them.
    if (jit::is_vector_tile(block()) && testing::gpu_device().type() != DeviceType::Cuda) {
      GTEST_SKIP() << "the vector tile is CUDA's";
    }
    setenv("EMBER_MATMUL_BLOCK", std::to_string(block()).c_str(), 1);
    setenv("EMBER_MATMUL_STAGES", std::to_string(stages()).c_str(), 1);
  }
  void TearDown() override {
    unsetenv("EMBER_MATMUL_BLOCK");
    unsetenv("EMBER_MATMUL_STAGES");
  }
  int block() const { return std::get<0>(GetParam()); }
  int stages() const { return std::get<1>(GetParam()); }
};

TEST_P(MatmulBlocks, TheForcedBlockIsTheOneUsed) {
  EMBER_REQUIRE_GPU_DEVICE();
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {37, 19}}), b.input(1, {DType::F32, {19, 45}}));
  auto choices = jit::choose_matmul_blocks(g, detail::backend_for(testing::gpu_device()));
  EXPECT_EQ(choices[mm].block, block());
  EXPECT_EQ(choices[mm].stages, stages());
  EXPECT_TRUE(choices[mm].tune_key.empty()) << "a forced block is not tuned";
}

TEST_P(MatmulBlocks, RaggedEdgesWithEpilogue) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<2>::from_data(testing::host_uniform({37, 19}, 71), dev);
    auto b = Tensor<2>::from_data(testing::host_uniform({19, 45}, 72), dev);
    auto bias = Tensor<2>::from_data(testing::host_uniform({1, 45}, 73), dev);
    auto y = activation::relu(a.matmul(b) + bias);
    return {y.raw(), a.matmul(b).raw()};
  });
}

TEST_P(MatmulBlocks, BatchedBroadcastAndTransposedViews) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<3>::from_data(testing::host_uniform({3, 21, 33}, 74), dev);
    auto b = Tensor<3>::from_data(testing::host_uniform({1, 40, 33}, 75), dev);
    auto y = a.matmul(b.swap_dims(1, 2));              // [3, 21, 40], b read transposed
    auto z = a.swap_dims(1, 2).matmul(a.exp() * 0.1);  // [3, 33, 33], prologue on both sides
    return {y.raw(), z.raw()};
  });
}

TEST_P(MatmulBlocks, HalfPrecisionAndLongK) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({40, 300}, 76), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({300, 24}, 77), dev);
        return {a.cast(DType::F16).matmul(b.cast(DType::F16)).raw(), a.matmul(b).raw()};
      },
      2e-2, 2e-1);
}

// Operands the f32 vector tile reads (rows of a multiple of 4 elements), with ragged edges in
// M, N and K against its 128 x 128 x 16 tiles, a batch broadcasting B, and a fused epilogue.
TEST_P(MatmulBlocks, AlignedRowsWithRaggedEdges) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<3>::from_data(testing::host_uniform({3, 133, 36}, 78), dev);
    auto b = Tensor<3>::from_data(testing::host_uniform({1, 36, 140}, 79), dev);
    auto bias = Tensor<3>::from_data(testing::host_uniform({1, 1, 140}, 80), dev);
    return {activation::relu(a.matmul(b) + bias).raw()};
  });
}

// Transposed operands that the vector tiles read as they are stored (the contiguous extents
// multiples of 4): an M-major A (a weight gradient x^T @ dy) and a K-major B (an input gradient
// dy @ w^T), with ragged edges against their 128-row and 128- or 256-column blocks, batches (B
// broadcast), and a transposed operand computed in the flush (stored by the planner first).
TEST_P(MatmulBlocks, TransposedOperandsWithRaggedEdges) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({100, 260}, 81), dev);
    auto dy = Tensor<2>::from_data(testing::host_uniform({100, 140}, 82), dev);
    auto w = Tensor<2>::from_data(testing::host_uniform({134, 140}, 85), dev);
    auto xs = Tensor<3>::from_data(testing::host_uniform({2, 44, 132}, 83), dev);
    auto ys = Tensor<3>::from_data(testing::host_uniform({2, 44, 72}, 84), dev);
    auto ws = Tensor<3>::from_data(testing::host_uniform({1, 60, 72}, 86), dev);
    auto gw = x.swap_dims(0, 1).matmul(dy);                // [260, 140], K = 100
    auto gx = dy.matmul(w.swap_dims(0, 1));                // [100, 134], K = 140
    auto batched = xs.swap_dims(1, 2).matmul(ys) * 0.5;    // [2, 132, 72]
    auto batched_t = ys.matmul(ws.swap_dims(1, 2)) + 1.0;  // [2, 44, 60]
    auto of_expr = (x * 2.0).swap_dims(0, 1).matmul(dy);   // A computed in the flush
    return {gw.raw(), gx.raw(), batched.raw(), batched_t.raw(), of_expr.raw()};
  });
}

// K = 0: a sum of nothing, zeros (the two-stage pipeline loads nothing ahead then).
TEST_P(MatmulBlocks, EmptyK) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({5, 0}, 74), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({0, 7}, 75), dev);
        return {(a.matmul(b) + 1.0).raw()};
      },
      testing::gpu_device());
}

// Without a tuned winner, an f32 product on CUDA takes the wide vector tile where it gives 128
// tiles, else the narrow one where that does (mlp_train_step's 1024 x 2048), else the template.
TEST(MatmulHeuristic, VectorTileWidthFollowsTheTileCount) {
  EMBER_REQUIRE_GPU_DEVICE();
  if (testing::gpu_device().type() != DeviceType::Cuda)
    GTEST_SKIP() << "the vector tiles are CUDA's";
  setenv("EMBER_AUTOTUNE", "off", 1);
  for (auto [m, n, block] : {std::tuple{int64_t{2048}, int64_t{2048}, jit::kVectorTileBlock},
                             {1024, 2048, jit::kNarrowVectorTileBlock},
                             {512, 1024, 0}}) {
    SCOPED_TRACE(::testing::Message() << m << " x " << n);
    ir::Graph g;
    ir::Builder b(g);
    ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {m, 64}}), b.input(1, {DType::F32, {64, n}}));
    auto choices = jit::choose_matmul_blocks(g, detail::backend_for(testing::gpu_device()));
    if (block > 0) {
      EXPECT_EQ(choices[mm].block, block);
    } else {
      EXPECT_FALSE(jit::is_vector_tile(choices[mm].block)) << "32 narrow tiles: the template";
    }
  }
  unsetenv("EMBER_AUTOTUNE");
}

INSTANTIATE_TEST_SUITE_P(Blocks, MatmulBlocks,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8, 16, 17),
                                            ::testing::Values(1, 2)),
                         [](const auto& info) {
                           return "R" + std::to_string(std::get<0>(info.param)) + "S" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace ember
