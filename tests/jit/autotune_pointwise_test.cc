// The pointwise template's configuration (threads, elements per thread, vector width) through
// the autotune cache on the GPU device: every configuration computes the same elements (4-wide
// and scalar paths, sizes not divisible by the vector, half-precision outputs); with
// EMBER_AUTOTUNE=on a new key is tuned and stored with every candidate, small kernels are not
// tuned; with =cached a stored winner is used; keys anchor sizes and keep dtypes apart.
#include <cstdlib>
#include <string>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "jit/exec/executor.h"
#include "kernels/pointwise/family.h"
#include "kernels/pointwise/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

class AutotunePointwise : public testing::AutotuneTest {
 protected:
  void TearDown() override {
    unsetenv("EMBER_POINTWISE");
    jit::clear_plan_cache();  // plans made under these settings keep their configurations
    AutotuneTest::TearDown();
  }
};

// Two outputs of one fused elementwise chain over n elements, and an f16 output.
std::vector<RawTensor> pointwise_program(const Device& dev, int64_t n) {
  auto x = Tensor<1>::from_data(testing::host_uniform({n}, 61), dev);
  auto y = x * 1.5 + 0.25;
  return {y.raw(), (y * x).exp().raw(), x.cast(DType::F16).raw()};
}

// The key of an f32 [n] pointwise kernel with `outputs` outputs on the GPU device.
std::string key_for(int64_t n, DType dtype = DType::F32, int outputs = 1) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId x = b.input(0, {dtype, {n}});
  jit::KernelPlan kp{&jit::pointwise_family()};
  kp.shape = Shape{n};
  for (int i = 0; i < outputs; ++i) kp.outputs.push_back(b.unary(ir::UnaryFn::Neg, x));
  return jit::pointwise_tune_key(g, kp, detail::backend_for(testing::gpu_device())).to_string();
}

TEST_F(AutotunePointwise, EveryConfigurationComputesTheSameElements) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (int threads : jit::kPointwiseThreads) {
    for (int unroll : jit::kPointwiseUnrolls) {
      for (int vector : {1, 4}) {
        std::string config = jit::config_string({threads, unroll, vector});
        setenv("EMBER_POINTWISE", config.c_str(), 1);
        jit::clear_plan_cache();
        for (int64_t n : {4096, 4099}) {
          SCOPED_TRACE(config + ", " + std::to_string(n) + " elements");
          testing::expect_same([n](const Device& dev) { return pointwise_program(dev, n); },
                               testing::gpu_device(), 1e-3, 1e-3);
        }
      }
    }
  }
}

TEST_F(AutotunePointwise, OnTunesANewKeyAndStoresEveryCandidate) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  jit::clear_plan_cache();
  const int64_t n = 1 << 17;
  testing::expect_same(
      [n](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<1>::from_data(testing::host_uniform({n}, 62), dev);
        return {(x * 2.0 + 1.0).raw()};
      },
      testing::gpu_device());
  auto e = autotune::process_store().lookup(key_for(n));
  ASSERT_TRUE(e.has_value()) << key_for(n);
  EXPECT_EQ(e->family, "pointwise");
  EXPECT_EQ(e->candidates.size(), std::size(jit::kPointwiseThreads) *
                                      std::size(jit::kPointwiseUnrolls) * 2);  // 4-wide and not
  EXPECT_GT(jit::variant_of(e->winner), 0) << e->winner;
  // Small kernels are launch-bound: not tuned.
  jit::clear_plan_cache();
  testing::expect_same(
      [](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<1>::from_data(testing::host_uniform({2048}, 63), dev);
        return {(x * 2.0 + 1.0).raw()};
      },
      testing::gpu_device());
  EXPECT_FALSE(autotune::process_store().lookup(key_for(2048)).has_value());
}

TEST_F(AutotunePointwise, CachedUsesTheStoredWinner) {
  EMBER_REQUIRE_GPU_DEVICE();
  setenv("EMBER_AUTOTUNE", "cached", 1);
  const int64_t n = 1 << 16;
  testing::store_winner(key_for(n), "pointwise", "threads=128,unroll=2,vector=1");
  ir::Graph g;
  ir::Builder b(g);
  jit::KernelPlan kp{&jit::pointwise_family()};
  kp.shape = Shape{n};
  kp.outputs = {b.unary(ir::UnaryFn::Neg, b.input(0, {DType::F32, {n}}))};
  std::string tune_key;
  EXPECT_EQ(jit::choose_pointwise(g, kp, detail::backend_for(testing::gpu_device()), &tune_key),
            jit::pointwise_variant({128, 2, 1}));
  EXPECT_TRUE(tune_key.empty());
  jit::clear_plan_cache();
  testing::expect_same(
      [n](const Device& dev) -> std::vector<RawTensor> {
        auto x = Tensor<1>::from_data(testing::host_uniform({n}, 64), dev);
        return {(-x).raw()};
      },
      testing::gpu_device());
}

TEST(PointwiseTuneKey, AnchorsSizesAndSeparatesDtypesAndWidths) {
  EMBER_REQUIRE_GPU_DEVICE();
  EXPECT_EQ(key_for(70000), key_for(80000)) << "same anchor and alignment";
  EXPECT_NE(key_for(70000), key_for(70001)) << "not a multiple of the vector";
  EXPECT_NE(key_for(70000), key_for(300000));
  EXPECT_NE(key_for(70000), key_for(70000, DType::F16));
  EXPECT_NE(key_for(70000), key_for(70000, DType::F32, 2));
  EXPECT_NE(key_for(70000).find("v4"), std::string::npos) << key_for(70000);
  EXPECT_NE(key_for(70001).find("v1"), std::string::npos) << key_for(70001);
}

TEST(PointwiseConfig, RoundTripsAndRejectsOthers) {
  for (int threads : jit::kPointwiseThreads) {
    for (int unroll : jit::kPointwiseUnrolls) {
      for (int vector : {1, 4}) {
        jit::PointwiseConfig c{threads, unroll, vector};
        int v = jit::variant_of(jit::config_string(c));
        ASSERT_GT(v, 0);
        EXPECT_EQ(jit::pointwise_config(v).threads, threads);
        EXPECT_EQ(jit::pointwise_config(v).unroll, unroll);
        EXPECT_EQ(jit::pointwise_config(v).vector, vector);
      }
    }
  }
  for (const char* bad :
       {"", "threads=256", "threads=100,unroll=4,vector=4", "threads=256,unroll=3,vector=4",
        "threads=256,unroll=4,vector=2", "threads=256,unroll=4,vector=4,extra=1", "wg=256"}) {
    EXPECT_EQ(jit::variant_of(bad), 0) << bad;
  }
}

}  // namespace
}  // namespace ember
