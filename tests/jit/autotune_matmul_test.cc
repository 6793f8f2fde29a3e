// The matmul block choice through the autotune cache on the GPU device: with
// EMBER_AUTOTUNE=on a new key is tuned (every candidate timed, results checked, the entry
// stored) and the result is right; with =cached a stored winner is used as is.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "kernels/matmul/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class AutotuneMatmul : public testing::AutotuneTest {};

// The key a [m, k] x [k, n] f32 matmul gets on the GPU device.
std::string key_for(int64_t m, int64_t k, int64_t n) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {m, k}}), b.input(1, {DType::F32, {k, n}}));
  return jit::matmul_tune_key(g, mm, detail::backend_for(testing::gpu_device())).to_string();
}

TEST_F(AutotuneMatmul, OnTunesANewKeyAndStoresEveryCandidate) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({40, 24}, 91), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({24, 56}, 92), dev);
        return {(a.matmul(b) * 2.0).raw()};
      },
      testing::gpu_device());
  auto e = autotune::process_store().lookup(key_for(40, 24, 56));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->family, "matmul");
  // Blocks 1, 2, 4, 8, and on CUDA the f32 vector tile.
  const bool cuda = testing::gpu_device().type() == DeviceType::Cuda;
  EXPECT_EQ(e->candidates.size(), cuda ? 5u : 4u);
  EXPECT_EQ(e->winner.rfind("block=", 0), 0u);
}

// A second size of the same structure hits the plan cache but is a new key: tuned too.
TEST_F(AutotuneMatmul, OnTunesEachKeyEvenOnPlanCacheHits) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  for (auto [m, n] : {std::pair<int64_t, int64_t>{20, 28}, {100, 36}}) {
    testing::expect_same(
        [m, n](const Device& dev) -> std::vector<RawTensor> {
          auto a = Tensor<2>::from_data(testing::host_uniform({m, 12}, 95), dev);
          auto b = Tensor<2>::from_data(testing::host_uniform({12, n}, 96), dev);
          return {(a.matmul(b) + 1.0).raw()};
        },
        testing::gpu_device());
    EXPECT_TRUE(autotune::process_store().lookup(key_for(m, 12, n)).has_value()) << m << "x" << n;
  }
}

TEST_F(AutotuneMatmul, CachedUsesTheStoredWinner) {
  EMBER_REQUIRE_GPU_DEVICE();
  setenv("EMBER_AUTOTUNE", "cached", 1);
  testing::store_winner(key_for(48, 16, 72), "matmul", "block=2");
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {48, 16}}), b.input(1, {DType::F32, {16, 72}}));
  EXPECT_EQ(jit::choose_matmul_blocks(g, detail::backend_for(testing::gpu_device()))[mm].block, 2);
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({48, 16}, 93), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({16, 72}, 94), dev);
        return {a.matmul(b).raw()};
      },
      testing::gpu_device());
}

// A stored winner this target cannot run (block=16 is CUDA's f32 vector tile; tile=... a
// tensor-core tile) is discarded: the heuristic runs, the matmul is right, and the row is gone
// from the store (it used to fail every such matmul).
TEST_F(AutotuneMatmul, InvalidStoredWinnerIsDiscarded) {
  EMBER_REQUIRE_GPU_DEVICE();
  if (testing::gpu_device().type() == DeviceType::Cuda) GTEST_SKIP() << "block=16 is valid here";
  setenv("EMBER_AUTOTUNE", "cached", 1);
  const std::string key = key_for(36, 20, 44);
  testing::store_winner(key, "matmul", "block=16");
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId mm = b.matmul(b.input(0, {DType::F32, {36, 20}}), b.input(1, {DType::F32, {20, 44}}));
  int block = jit::choose_matmul_blocks(g, detail::backend_for(testing::gpu_device()))[mm].block;
  EXPECT_NE(block, 16);
  EXPECT_GT(block, 0);
  EXPECT_FALSE(autotune::process_store().lookup(key).has_value());
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto a = Tensor<2>::from_data(testing::host_uniform({36, 20}, 97), dev);
        auto b = Tensor<2>::from_data(testing::host_uniform({20, 44}, 98), dev);
        return {a.matmul(b).raw()};
      },
      testing::gpu_device());
}

}  // namespace
}  // namespace ember
