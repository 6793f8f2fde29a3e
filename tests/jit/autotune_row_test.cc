// The row template's workgroup size through the autotune cache on the GPU device: every size of
// the space computes the same rows (register-cached, uncached and strided); with
// EMBER_AUTOTUNE=on a new key is tuned and stored with every candidate; with =cached a stored
// winner is used as is; keys anchor sizes and keep the layout apart.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "kernels/row/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class AutotuneRow : public testing::AutotuneTest {};

// Softmax over rows of `len` and an arg-max and a mean over the other axis (strided rows).
std::vector<RawTensor> row_program(const Device& dev, int64_t rows, int64_t len) {
  auto x = Tensor<2>::from_data(testing::host_uniform({rows, len}, 97), dev);
  auto e = (x - x.max_dim(1)).exp();
  return {(e / e.sum_dim(1)).raw(), x.argmax(1).raw(), x.mean_dim(0).raw()};
}

// The key of a [rows, len] f32 sum over axis 1 (or 0) on the GPU device.
std::string key_for(int64_t rows, int64_t len, int axis = 1) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId r = b.reduce(ir::ReduceFn::Sum, b.input(0, {DType::F32, {rows, len}}), axis);
  return jit::row_tune_key(g, r, detail::backend_for(testing::gpu_device())).to_string();
}

TEST_F(AutotuneRow, EveryWorkgroupSizeComputesTheSameRows) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (int wg : jit::kRowWorkgroups) {
    setenv("EMBER_ROW_WORKGROUP", std::to_string(wg).c_str(), 1);
    for (int64_t len : {37, 1000, 3000}) {
      SCOPED_TRACE(std::to_string(wg) + " threads, rows of " + std::to_string(len));
      testing::expect_same([len](const Device& dev) { return row_program(dev, 3, len); },
                           testing::gpu_device());
    }
  }
}

TEST_F(AutotuneRow, OnTunesANewKeyAndStoresEveryCandidate) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<2>::from_data(testing::host_uniform({5, 300}, 98), dev);
        return {(x * x).sum_dim(1).raw()};
      },
      testing::gpu_device());
  auto e = autotune::process_store().lookup(key_for(5, 300));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->family, "row");
  // Every workgroup, and the kernel with a thread per row.
  EXPECT_EQ(e->candidates.size(), std::size(jit::kRowWorkgroups) + 1);
  EXPECT_TRUE(e->winner.rfind("wg=", 0) == 0 || e->winner == "rows=128") << e->winner;
}

// Sizes sharing one plan but not one tuning key: each size's tuning may pick another
// workgroup than the plan was keyed with, and no size may run a kernel specialised for another.
TEST_F(AutotuneRow, TuningAcrossSizesOfOnePlan) {
  EMBER_REQUIRE_GPU_DEVICE();
  setenv("EMBER_AUTOTUNE", "on", 1);
  for (int64_t rows : {64, 200, 64, 7, 200, 1000}) {
    SCOPED_TRACE(rows);
    testing::expect_same(
        [rows](const Device& dev) -> std::vector<RawTensor> {
          auto x = Tensor<2>::from_data(testing::host_uniform({rows, 40}, 100), dev);
          auto c = x.sum_dim(0);
          return {c.raw(), (x / (c + 50.0)).raw()};
        },
        testing::gpu_device(), 1e-4, 1e-4);
  }
}

TEST_F(AutotuneRow, CachedUsesTheStoredWinner) {
  EMBER_REQUIRE_GPU_DEVICE();
  setenv("EMBER_AUTOTUNE", "cached", 1);
  testing::store_winner(key_for(6, 500), "row", "wg=512");
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId r = b.reduce(ir::ReduceFn::Sum, b.input(0, {DType::F32, {6, 500}}), 1);
  EXPECT_EQ(jit::choose_row_workgroups(g, detail::backend_for(testing::gpu_device()))[r].workgroup,
            512);
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<2>::from_data(testing::host_uniform({6, 500}, 99), dev);
        return {x.sum_dim(1).raw()};
      },
      testing::gpu_device());
}

TEST(RowTuneKey, AnchorsSizesAndSeparatesLayouts) {
  EMBER_REQUIRE_GPU_DEVICE();
  EXPECT_EQ(key_for(100, 1000), key_for(124, 1000)) << "same anchors and alignments";
  EXPECT_NE(key_for(100, 1000), key_for(100, 1100));
  EXPECT_NE(key_for(128, 128, 1), key_for(128, 128, 0)) << "strided rows are another problem";
  EXPECT_NE(key_for(100, 1000).find("|128x1024|"), std::string::npos) << key_for(100, 1000);
  // Softmax (max then sum over the row) and a sum of squares are other row programs.
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId x = b.input(0, {DType::F32, {100, 1000}});
  ir::ValueId mx = b.reduce(ir::ReduceFn::Max, x, 1);
  ir::ValueId e =
      b.unary(ir::UnaryFn::Exp, b.binary(ir::BinaryFn::Sub, x, b.expand(mx, {100, 1000})));
  b.reduce(ir::ReduceFn::Sum, e, 1);
  std::string softmax =
      jit::row_tune_key(g, mx, detail::backend_for(testing::gpu_device())).to_string();
  EXPECT_NE(softmax, key_for(100, 1000));
  EXPECT_NE(softmax.find("max+sum"), std::string::npos) << softmax;
}

}  // namespace
}  // namespace ember
