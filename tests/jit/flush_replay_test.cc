// A stream compares each flush's graph with its last one; an equal graph (same nodes, sizes and
// outputs) replays the last flush's plan and launches, rewriting only changed scalars
// (stats().replays). Every step here is checked against the CPU, so a stale scalar, seed or
// layout in a replayed flush fails.
#include <cstdlib>

#include "jit/exec/executor.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

// An eager elementwise chain with runtime scalars.
std::vector<RawTensor> chain(const Device& dev, int64_t n, double a, double b) {
  auto x = Tensor<2>::from_data(testing::host_uniform({4, n}, 5), dev);
  for (int i = 0; i < 8; ++i) x = x * a + b;
  return {x.raw()};
}

int64_t replays(const Device& dev) { return stats(dev).replays; }

TEST(FlushReplay, RepeatedStepReplaysWithEachStepsScalars) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  // Warm-up: plans (and tunes where the device tunes), then a flush that leaves a replay.
  for (int i = 0; i < 2; ++i) chain(dev, 64, 1.0, 0.0)[0].to_data();
  int64_t before = replays(dev);
  for (double a : {1.5, 1.5, 0.5, -2.0}) {
    testing::expect_same([&](const Device& d) { return chain(d, 64, a, 0.25); }, dev);
  }
  EXPECT_EQ(replays(dev) - before, 4) << "each step after the first replays the last";
}

TEST(FlushReplay, OtherSizesOrOutputsPlanAgain) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  for (int i = 0; i < 2; ++i) chain(dev, 64, 1.0, 0.0)[0].to_data();
  int64_t before = replays(dev);
  testing::expect_same([&](const Device& d) { return chain(d, 96, 1.25, 0.5); }, dev);
  EXPECT_EQ(replays(dev), before) << "other sizes are another graph";
  // The same ops with an intermediate kept alive: another set of outputs.
  auto kept = [](const Device& d) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({4, 96}, 5), d);
    auto mid = x * 1.25 + 0.5;
    auto y = mid;
    for (int i = 1; i < 8; ++i) y = y * 1.25 + 0.5;
    return {mid.raw(), y.raw()};
  };
  testing::expect_same(kept, dev);
  EXPECT_EQ(replays(dev), before) << "other outputs";
}

TEST(FlushReplay, ReplayedRandomStepsDrawFreshNumbers) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto noisy = [](const Device& d, uint32_t seed) -> std::vector<RawTensor> {
    ember::seed(seed);
    auto x = Tensor<2>::from_data(testing::host_uniform({4, 32}, 9), d);
    auto r = Tensor<2>::random({4, 32}, Distribution::uniform(0, 1), d);
    return {(x + r * 0.5).raw()};
  };
  for (int i = 0; i < 2; ++i) noisy(dev, 1)[0].to_data();
  int64_t before = replays(dev);
  TensorData first = noisy(dev, 2)[0].to_data();
  for (uint32_t seed : {3u, 4u}) {
    testing::expect_same([&](const Device& d) { return noisy(d, seed); }, dev);
  }
  EXPECT_GE(replays(dev) - before, 2);
  EXPECT_THROW(noisy(dev, 4)[0].to_data().assert_approx_eq(first, Tolerance::rel_abs(0, 0)), Error)
      << "another seed must draw other numbers";
}

// Two graphs flushed in turn (a training step's forward and backward, each flushed on its own)
// each replay their own last plan: a stream remembers its last few distinct flushes.
TEST(FlushReplay, AlternatingFlushesEachReplay) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  for (int i = 0; i < 2; ++i) {
    chain(dev, 56, 1.0, 0.0)[0].to_data();
    chain(dev, 88, 1.0, 0.0)[0].to_data();
  }
  int64_t before = replays(dev);
  for (double a : {1.5, 0.5, -2.0}) {
    testing::expect_same([&](const Device& d) { return chain(d, 56, a, 0.25); }, dev);
    testing::expect_same([&](const Device& d) { return chain(d, 88, -a, 0.5); }, dev);
  }
  EXPECT_EQ(replays(dev) - before, 6) << "each of the two flushes replays its own plan";
}

// More distinct flushes in turn than a stream remembers: each evicts the one flushed next, so
// none replays, and every one still computes its own graph.
TEST(FlushReplay, MoreDistinctFlushesThanRememberedPlanAgain) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  const int64_t sizes[] = {24, 32, 40, 48, 56, 64};
  for (int64_t n : sizes) chain(dev, n, 1.0, 0.0)[0].to_data();
  int64_t before = replays(dev);
  for (int round = 0; round < 2; ++round) {
    for (int64_t n : sizes) {
      SCOPED_TRACE(n);
      testing::expect_same([&](const Device& d) { return chain(d, n, 0.75 + round, 0.5); }, dev);
    }
  }
  EXPECT_EQ(replays(dev), before) << "six graphs in turn: each one's memo was evicted";
}

// A training loop that reads its loss every step (a flush of the forward, its activations held
// for the backward), then flushes the backward and the update: two flushes a step, both
// replayed from the second step on, every step's parameters and loss as on the CPU.
TEST(FlushReplay, TrainingStepFlushedInTwoReplaysBoth) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto train = [](const Device& d, int steps) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({16, 32}, 21), d);
    auto w = Tensor<2>::from_data(testing::host_uniform({32, 8}, 22), d);
    std::vector<RawTensor> out;
    for (int s = 0; s < steps; ++s) {
      auto wg = w.require_grad();
      auto h = activation::relu(x.matmul(wg));
      Tensor<1> loss = (h * h).sum();
      loss.to_data();  // printed by a training loop
      Gradients g = loss.backward();
      w = w - wg.grad(g).value() * 0.01;
      w.to_data();
      out.push_back(loss.raw());
    }
    out.push_back(w.raw());
    return out;
  };
  train(dev, 2);
  int64_t before = replays(dev);
  testing::expect_same([&](const Device& d) { return train(d, 4); }, dev, 1e-4, 1e-4);
  EXPECT_GE(replays(dev) - before, 6) << "a replay per flush from the second step on";
}

TEST(FlushReplay, ClearedPlansAreNotReplayed) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  for (int i = 0; i < 2; ++i) chain(dev, 48, 1.0, 0.0)[0].to_data();
  jit::clear_plan_cache();
  int64_t before = replays(dev);
  testing::expect_same([&](const Device& d) { return chain(d, 48, 2.0, 1.0); }, dev);
  EXPECT_EQ(replays(dev), before);
  testing::expect_same([&](const Device& d) { return chain(d, 48, 0.5, 1.0); }, dev);
  EXPECT_EQ(replays(dev), before + 1) << "planned again, then replayed";
}

TEST(FlushReplay, FusionSwitchIsPartOfTheReplay) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  for (int i = 0; i < 2; ++i) chain(dev, 40, 1.0, 0.0)[0].to_data();
  int64_t kernels = stats(dev).kernels_launched;
  {
    FusionGuard unfused(false);
    testing::expect_same([&](const Device& d) { return chain(d, 40, 2.0, 1.0); }, dev);
  }
  EXPECT_GT(stats(dev).kernels_launched - kernels, 8) << "unfused: a kernel per op";
}

// A requested split-K rewrites the graph before planning: the same recorded step under another
// EMBER_SPLIT_K has another rewritten graph and must plan again, not replay the last plan (it
// did, reading past the graph: AddressSanitizer in CI, SplitK.WeightGradients/S4 after S2).
TEST(FlushReplay, SplitKSwitchPlansAgain) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto step = [](const Device& d) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({8, 64}, 7), d);
    auto w = Tensor<2>::from_data(testing::host_uniform({64, 16}, 8), d);
    return {activation::relu(x.matmul(w)).raw()};
  };
  for (const char* parts : {"2", "2", "4", "16", "0"}) {
    setenv("EMBER_SPLIT_K", parts, 1);
    SCOPED_TRACE(parts);
    testing::expect_same(step, dev, 1e-4, 1e-4);
  }
  unsetenv("EMBER_SPLIT_K");
}

// A replayed flush skips choosing its kernels' variants again while nothing they depend on
// changed (jit::variant_epoch). A forced variant set between two replays of the same step is
// such a change: the step must plan with the forced variant, not replay the frozen one.
TEST(FlushReplay, ForcedVariantSetBetweenReplaysIsUsed) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  if (dev.type() == DeviceType::Cpu) GTEST_SKIP() << "the CPU target has one pointwise variant";
  unsetenv("EMBER_POINTWISE");
  for (int i = 0; i < 3; ++i) chain(dev, 72, 1.0, 0.0)[0].to_data();
  int64_t before = replays(dev);
  testing::expect_same([&](const Device& d) { return chain(d, 72, 1.5, 0.25); }, dev);
  EXPECT_EQ(replays(dev) - before, 1);
  // The forced variant differs from the frozen one (the heuristic has 256 threads): another
  // frozen plan, so no replay; the next step replays that one.
  setenv("EMBER_POINTWISE", "threads=128,unroll=1,vector=1", 1);
  before = replays(dev);
  testing::expect_same([&](const Device& d) { return chain(d, 72, 0.5, 1.0); }, dev);
  EXPECT_EQ(replays(dev), before) << "the frozen variants were replayed past the forced one";
  testing::expect_same([&](const Device& d) { return chain(d, 72, 2.0, 1.0); }, dev);
  EXPECT_EQ(replays(dev) - before, 1);
  unsetenv("EMBER_POINTWISE");
}

// A graph the families rewrite (a long column sum, split in two passes on GPU targets) keeps
// its rewrite for the next flush of the same step, which carries its own scalars into it: each
// step's scale and offset must reach the sums (a stale scalar in the kept rewrite fails here).
TEST(FlushReplay, KeptRewriteTakesEachStepsScalars) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto step = [](const Device& d, double a, double b) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({4096, 64}, 13), d);
    auto filled = Tensor<2>::full({4096, 64}, b, d);
    return {(x * a + filled).sum_dim(0).raw()};
  };
  for (int i = 0; i < 2; ++i) step(dev, 1.0, 0.0)[0].to_data();
  int64_t before = replays(dev);
  for (auto [a, b] : {std::pair{1.5, 0.25}, {1.5, 0.25}, {-0.5, 2.0}, {3.0, -1.0}}) {
    testing::expect_same([&](const Device& d) { return step(d, a, b); }, dev, 1e-4, 1e-4);
  }
  EXPECT_EQ(replays(dev) - before, 4);
}

}  // namespace
}  // namespace ember
