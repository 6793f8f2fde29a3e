// A cached plan's launches reach the backend as one sequence; on CUDA that sequence replays as
// a CUDA graph (stats().graph_launches), patched when buffers, scalars or sizes change. Each
// step is checked against the CPU, so a stale buffer or scalar in a replayed graph fails here.
// Skipped unless the test device is CUDA (EMBER_TEST_DEVICE=cuda:0 on the GPU machine).
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

bool cuda_test_device() {
  Device dev = testing::gpu_device();
  return dev.type() == DeviceType::Cuda && dev.is_available();
}

#define EMBER_REQUIRE_CUDA() EMBER_SKIP_UNLESS(cuda_test_device(), "the test device is not CUDA")

// Several kernels per flush: a matmul with its epilogue, a column reduction over its result
// and a pointwise kernel reading both. `scale` is a runtime scalar of the plan.
std::vector<RawTensor> step(const Device& dev, int64_t rows, uint32_t seed, double scale) {
  auto x = Tensor<2>::from_data(testing::host_uniform({rows, 24}, seed), dev);
  auto w = Tensor<2>::from_data(testing::host_uniform({24, 40}, seed + 1), dev);
  auto h = activation::relu(x.matmul(w) * scale);
  auto c = h.sum_dim(0);
  return {h.raw(), (h / (c + 1.0)).raw()};
}

// Runs the step on the test device, checks it against the CPU, and returns its graph launches.
int64_t graph_launches_of(int64_t rows, uint32_t seed, double scale) {
  Device dev = testing::gpu_device();
  int64_t launches = stats(dev).kernels_launched, before = stats(dev).graph_launches;
  testing::expect_same([&](const Device& d) { return step(d, rows, seed, scale); }, dev);
  EXPECT_GE(stats(dev).kernels_launched - launches, 2) << "the step should need several kernels";
  return stats(dev).graph_launches - before;
}

TEST(GraphReplay, RepeatedStepReplaysAsOneGraph) {
  EMBER_REQUIRE_CUDA();
  // The first step plans, compiles and may tune (a new variant is a new plan); the second plans
  // with the tuned variants.
  graph_launches_of(32, 1, 0.5);
  graph_launches_of(32, 1, 0.5);
  int64_t replays = 0;
  for (int i = 0; i < 4; ++i) replays += graph_launches_of(32, 1, 0.5);
  EXPECT_EQ(replays, 4);
}

// New input buffers and scalar values each step: more variants than the graphs kept per plan,
// so kept graphs are patched in place; every step must still compute its own inputs.
TEST(GraphReplay, NewBuffersAndScalarsPatchTheGraph) {
  EMBER_REQUIRE_CUDA();
  int64_t replays = 0;
  for (uint32_t i = 0; i < 10; ++i) replays += graph_launches_of(48, 10 + 2 * i, 0.25 + i);
  EXPECT_GE(replays, 8);
}

// The same plan at other sizes changes grids and shape parameters of the replayed nodes.
TEST(GraphReplay, OtherSizesOfTheSamePlan) {
  EMBER_REQUIRE_CUDA();
  for (int64_t rows : {64, 200, 64, 7, 200, 1000}) {
    SCOPED_TRACE(rows);
    graph_launches_of(rows, 40, 1.5);
  }
}

// set_device_timing(false) drops the timestamps around flushes: nothing is timed until it is
// back on; results are unaffected.
TEST(DeviceTiming, OffTimesNothing) {
  EMBER_REQUIRE_CUDA();
  Device dev = testing::gpu_device();
  graph_launches_of(64, 3, 1.0);
  take_device_time_ms(dev);
  EXPECT_TRUE(set_device_timing(dev, false));
  graph_launches_of(64, 3, 1.0);
  EXPECT_EQ(take_device_time_ms(dev), 0.0);
  EXPECT_FALSE(set_device_timing(dev, true));
  graph_launches_of(64, 3, 1.0);
  EXPECT_GT(take_device_time_ms(dev), 0.0);
}

TEST(DeviceTiming, CpuHasNoTimer) {
  EXPECT_TRUE(set_device_timing(Device::cpu_reference(), false));
  EXPECT_EQ(take_device_time_ms(Device::cpu_reference()), -1.0);
}

}  // namespace
}  // namespace ember
