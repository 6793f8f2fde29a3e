// Learning-rate schedulers against their closed forms.
#include <gtest/gtest.h>

#include <numbers>

#include "tests/optim/test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

void expect_schedule(LrScheduler& s, int steps, const std::function<double(int)>& closed_form) {
  for (int k = 0; k < steps; ++k) EXPECT_NEAR(s.step(), closed_form(k), 1e-12) << "step " << k;
}

TEST(Scheduler, Constant) {
  ConstantLr s(0.3);
  expect_schedule(s, 5, [](int) { return 0.3; });
}

TEST(Scheduler, LinearReachesTheFinalRateAndStays) {
  LinearLrScheduler s(1.0, 0.2, 4);
  expect_schedule(s, 8, [](int k) { return 1.0 + (0.2 - 1.0) * std::min(k, 4) / 4.0; });
}

TEST(Scheduler, Exponential) {
  ExponentialLrScheduler s(0.5, 0.9);
  expect_schedule(s, 10, [](int k) { return 0.5 * std::pow(0.9, k); });
}

TEST(Scheduler, StepDropsEveryStepSize) {
  StepLrScheduler s(0.4, 3, 0.5);
  expect_schedule(s, 10, [](int k) { return 0.4 * std::pow(0.5, k / 3); });
}

TEST(Scheduler, CosineAnnealingRestartsAfterItsPeriod) {
  CosineAnnealingLrScheduler s(1.0, 5, 0.1);
  expect_schedule(
      s, 14, [](int k) { return 0.1 + 0.45 * (1 + std::cos(std::numbers::pi * (k % 6) / 5.0)); });
}

TEST(Scheduler, WarmUpScalesTheWrappedSchedule) {
  WarmUpLrScheduler s(std::make_unique<ExponentialLrScheduler>(1.0, 0.5), 4);
  expect_schedule(s, 8, [](int k) { return std::pow(0.5, k) * std::min(1.0, (k + 1) / 4.0); });
}

TEST(Scheduler, NoamRisesThenDecays) {
  NoamLrScheduler s(2.0, 4, 16);
  expect_schedule(s, 10, [](int k) {
    double step = k + 1;
    return 2.0 / 4.0 * std::min(1 / std::sqrt(step), step * std::pow(4.0, -1.5));
  });
}

std::vector<std::unique_ptr<LrScheduler>> exp_and_step() {
  std::vector<std::unique_ptr<LrScheduler>> v;
  v.push_back(std::make_unique<ExponentialLrScheduler>(0.5, 0.9));
  v.push_back(std::make_unique<StepLrScheduler>(2.0, 3, 0.1));
  return v;
}

TEST(Scheduler, ComposedCombinesEveryScheduler) {
  using R = ComposedLrScheduler::Reduction;
  auto a = [](int k) { return 0.5 * std::pow(0.9, k); };
  auto b = [](int k) { return 2.0 * std::pow(0.1, k / 3); };
  ComposedLrScheduler prod(exp_and_step(), R::prod), sum(exp_and_step(), R::sum),
      avg(exp_and_step(), R::avg);
  expect_schedule(prod, 7, [&](int k) { return a(k) * b(k); });
  expect_schedule(sum, 7, [&](int k) { return a(k) + b(k); });
  expect_schedule(avg, 7, [&](int k) { return (a(k) + b(k)) / 2; });
  ComposedLrScheduler copy(exp_and_step());
  copy = prod;  // an independent copy at step 7
  expect_schedule(copy, 3, [&](int k) { return a(k + 7) * b(k + 7); });
  expect_schedule(prod, 3, [&](int k) { return a(k + 7) * b(k + 7); });
}

TEST(Scheduler, ReduceOnPlateauCutsAfterPatienceWithCooldown) {
  ReduceLrOnPlateau::Options o;
  o.factor = 0.5;
  o.patience = 2;
  o.cooldown = 1;
  o.min_lr = 0.2;
  ReduceLrOnPlateau s(1.0, o);
  // Traced by hand from PyTorch's rule: a cut after 3 steps without a new best, none counted in
  // the step after a cut, never below min_lr.
  std::vector<double> metric = {1.0,  0.9,  0.95, 0.95, 0.95, 0.95, 0.95,
                                0.95, 0.95, 0.8,  0.8,  0.8,  0.8};
  std::vector<double> want = {1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2};
  for (size_t i = 0; i < metric.size(); ++i) EXPECT_EQ(s.step(metric[i]), want[i]) << i;
}

TEST(Scheduler, ReduceOnPlateauInMaxMode) {
  ReduceLrOnPlateau::Options o;
  o.mode = ReduceLrOnPlateau::Mode::max;
  o.patience = 0;
  ReduceLrOnPlateau s(1.0, o);
  EXPECT_EQ(s.step(0.5), 1.0);           // first value: a new best
  EXPECT_EQ(s.step(0.6), 1.0);           // higher is better
  EXPECT_NEAR(s.step(0.6), 0.1, 1e-15);  // no improvement, patience 0
}

TEST(Scheduler, CloneContinuesFromTheSamePosition) {
  WarmUpLrScheduler s(std::make_unique<StepLrScheduler>(1.0, 2, 0.1), 3);
  s.step();
  s.step();
  auto copy = s.clone();
  for (int k = 0; k < 5; ++k) EXPECT_EQ(s.step(), copy->step());
}

TEST(Scheduler, BadArgumentsThrow) {
  expect_error([] { ConstantLr(-1); }, {"ConstantLr", "lr"});
  expect_error([] { LinearLrScheduler(1, 0, 0); }, {"LinearLrScheduler", "num_iters"});
  expect_error([] { ExponentialLrScheduler(1, 1.5); }, {"ExponentialLrScheduler", "gamma"});
  expect_error([] { CosineAnnealingLrScheduler(0.1, 10, 0.2); },
               {"CosineAnnealingLrScheduler", "min_lr"});
  expect_error([] { WarmUpLrScheduler(nullptr, 3); }, {"WarmUpLrScheduler"});
  expect_error([] { NoamLrScheduler(1, 0, 16); }, {"NoamLrScheduler", "warmup_steps"});
  expect_error([] { ComposedLrScheduler({}); }, {"ComposedLrScheduler"});
  expect_error([] { ReduceLrOnPlateau(0.1, {.factor = 1.5}); }, {"ReduceLrOnPlateau", "factor"});
}

}  // namespace
}  // namespace ember::optim
