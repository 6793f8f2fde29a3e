// The tuning budget (EMBER_TUNE_BUDGET): its setting's syntax, the allowance it gives over a
// run, and on the GPU device with tuning on: with no allowance a kernel keeps its heuristic
// configuration (the results still right), its key is deferred, not stored, and the program
// replays without planning again; once the budget allows (a larger setting, or the run's
// share grown) the same program's next flush tunes and stores it; costly kernels go first.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "jit/tune/budget.h"
#include "kernels/row/tuning.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(TuneBudgetSetting, ParsesUnlimitedSecondsAndAShare) {
  EXPECT_TRUE(jit::parse_tune_budget("unlimited").unlimited);
  jit::TuneBudgetSetting s = jit::parse_tune_budget("2");
  EXPECT_FALSE(s.unlimited);
  EXPECT_DOUBLE_EQ(s.first_s, 2.0);
  EXPECT_DOUBLE_EQ(s.share, 0.1);
  s = jit::parse_tune_budget("0.25+50%");
  EXPECT_DOUBLE_EQ(s.first_s, 0.25);
  EXPECT_DOUBLE_EQ(s.share, 0.5);
  s = jit::parse_tune_budget("0+0%");
  EXPECT_DOUBLE_EQ(s.first_s, 0.0);
  EXPECT_DOUBLE_EQ(s.share, 0.0);
}

TEST(TuneBudgetSetting, RejectsOtherTextNamingTheVariable) {
  for (const char* bad : {"", "fast", "-1", "1+", "1+10", "1+200%", "1+-5%", "inf", "1s"}) {
    SCOPED_TRACE(bad);
    try {
      jit::parse_tune_budget(bad);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("EMBER_TUNE_BUDGET"), std::string::npos) << e.what();
    }
  }
}

TEST(TuneBudgetSetting, AllowanceIsTheFirstSecondsPlusTheShareOfTheRun) {
  jit::TuneBudgetSetting s = jit::parse_tune_budget("0.5+10%");
  EXPECT_DOUBLE_EQ(jit::tune_allowance_s(s, 0), 0.5);
  EXPECT_DOUBLE_EQ(jit::tune_allowance_s(s, 100), 10.5);
  EXPECT_TRUE(std::isinf(jit::tune_allowance_s(jit::parse_tune_budget("unlimited"), 0)));
  // The default when unset.
  unsetenv("EMBER_TUNE_BUDGET");
  s = jit::tune_budget_setting();
  EXPECT_FALSE(s.unlimited);
  EXPECT_DOUBLE_EQ(s.first_s, 0.5);
  EXPECT_DOUBLE_EQ(s.share, 0.1);
}

class TuneBudgetFlush : public testing::AutotuneTest {};

std::string sum_key(int64_t rows, int64_t len) {
  ir::Graph g;
  ir::Builder b(g);
  ir::ValueId r = b.reduce(ir::ReduceFn::Sum, b.input(0, {DType::F32, {rows, len}}), 1);
  return jit::row_tune_key(g, r, detail::backend_for(testing::gpu_device())).to_string();
}

std::vector<RawTensor> row_sums(const Device& dev) {
  auto x = Tensor<2>::from_data(testing::host_uniform({6, 310}, 131), dev);
  return {(x * x).sum_dim(1).raw()};
}

TEST_F(TuneBudgetFlush, NoAllowanceDefersTheKeyThenALargerBudgetTunesIt) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  jit::TuneBudget::process().reset();
  const std::string key = sum_key(6, 310);
  setenv("EMBER_TUNE_BUDGET", "0+0%", 1);
  testing::expect_same(row_sums, testing::gpu_device());
  EXPECT_FALSE(autotune::process_store().lookup(key).has_value()) << "tuned without a budget";
  EXPECT_TRUE(jit::TuneBudget::process().deferred(key));
  // Still no allowance: the same program replays, untuned, without planning again.
  const Device dev = testing::gpu_device();
  const int64_t before = stats(dev).replays;
  for (int i = 0; i < 2; ++i) row_sums(dev)[0].to_data();
  EXPECT_EQ(stats(dev).replays - before, 2) << "a deferred key made the flush plan again";
  EXPECT_FALSE(autotune::process_store().lookup(key).has_value());
  // The budget allows: the deferred key is offered again and tuned.
  setenv("EMBER_TUNE_BUDGET", "unlimited", 1);
  testing::expect_same(row_sums, testing::gpu_device());
  auto e = autotune::process_store().lookup(key);
  ASSERT_TRUE(e.has_value()) << "not tuned once the budget allowed";
  EXPECT_EQ(e->family, "row");
  EXPECT_FALSE(jit::TuneBudget::process().deferred(key));
}

// Two row sums of one flush with an allowance of half the run: the larger is tuned first, which
// spends the allowance, so the smaller is deferred; once the run has gone on long enough the same
// program's next flush (nothing in the environment changed) tunes it.
std::vector<RawTensor> two_row_sums(const Device& dev) {
  auto a = Tensor<2>::from_data(testing::host_uniform({40, 700}, 133), dev);
  auto b = Tensor<2>::from_data(testing::host_uniform({5, 90}, 134), dev);
  return {(a * a).sum_dim(1).raw(), (b * b).sum_dim(1).raw()};
}

TEST_F(TuneBudgetFlush, DeferredKeysAreTunedAsTheRunGoesOn) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  jit::TuneBudget& budget = jit::TuneBudget::process();
  budget.reset();
  const std::string large = sum_key(40, 700), small = sum_key(5, 90);
  setenv("EMBER_TUNE_BUDGET", "0+50%", 1);
  const Device dev = testing::gpu_device();
  for (const RawTensor& t : two_row_sums(dev)) t.to_data();
  EXPECT_TRUE(autotune::process_store().lookup(large).has_value()) << "the costly key first";
  EXPECT_FALSE(autotune::process_store().lookup(small).has_value());
  EXPECT_TRUE(budget.deferred(small));
  // A replay that takes in the tuned winner, so that afterwards only the budget's growth can
  // make the same program look again.
  for (const RawTensor& t : two_row_sums(dev)) t.to_data();
  EXPECT_FALSE(autotune::process_store().lookup(small).has_value());
  // Half the run covers what was spent plus the refill once the run is twice that plus 0.5 s.
  const double spent = budget.spent_s();
  EXPECT_GT(spent, 0);
  std::this_thread::sleep_for(std::chrono::duration<double>(spent + 0.6));
  testing::expect_same(two_row_sums, dev);
  EXPECT_TRUE(autotune::process_store().lookup(small).has_value())
      << "the deferred key was not tuned when the allowance had grown";
  EXPECT_FALSE(budget.deferred(small));
}

TEST_F(TuneBudgetFlush, ABadSettingIsAnErrorNamingIt) {
  EMBER_REQUIRE_GPU_DEVICE();
  EMBER_TUNE_ON_TEST_DEVICE();
  setenv("EMBER_TUNE_BUDGET", "soon", 1);
  auto dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(testing::host_uniform({7, 290}, 132), dev);
  try {
    (x * x).sum_dim(1).raw().to_data();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("EMBER_TUNE_BUDGET='soon'"), std::string::npos)
        << e.what();
  }
  // The program is usable after it.
  setenv("EMBER_TUNE_BUDGET", "unlimited", 1);
  testing::expect_same(row_sums, testing::gpu_device());
}

}  // namespace
}  // namespace ember
