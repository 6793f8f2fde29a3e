// Gradient clipping by value, by norm per parameter and by one norm over all parameters, against
// the formulas on host doubles.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/optim/test_util.h"

namespace ember::optim {
namespace {

using namespace testing;

const std::vector<double> kG = {3, -4, 0.5, 12, -0.25, 1};

TEST(GradientClipping, ByValueClampsEveryElement) {
  GradientClipping clip(GradientClippingConfig::value(1.0));
  std::vector<double> want;
  for (double g : kG) want.push_back(std::clamp(g, -1.0, 1.0));
  expect_near_all(host(clip.clip(from_host<2>(kG, Shape{2, 3}))), want, 0);
}

TEST(GradientClipping, ByNormScalesDownOnlyAboveTheThreshold) {
  double norm = 0;
  for (double g : kG) norm += g * g;
  norm = std::sqrt(norm);
  GradientClipping clip(GradientClippingConfig::norm(2.0));
  std::vector<double> want;
  for (double g : kG) want.push_back(g * 2.0 / (norm + 1e-6));
  expect_near_all(host(clip.clip(from_host<2>(kG, Shape{2, 3}))), want, 1e-6);
  GradientClipping loose(GradientClippingConfig::norm(100.0));
  expect_near_all(host(loose.clip(from_host<1>(kG, Shape{6}))), kG, 1e-6);
}

TEST(GradientClipping, BadThresholdThrows) {
  expect_error([] { GradientClipping(GradientClippingConfig::norm(0)); },
               {"GradientClipping", "threshold"});
}

struct TwoGrads {
  nn::ParamId a, b;
  GradientsParams grads;
  TwoGrads() {
    grads.register_grad(a, from_host<2>({3, -4, 0.5, 12}, Shape{2, 2}));
    grads.register_grad(b, from_host<1>({-0.25, 1}, Shape{2}));
  }
  std::vector<double> all() const {
    std::vector<double> v = host(*grads.get<2>(a)), w = host(*grads.get<1>(b));
    v.insert(v.end(), w.begin(), w.end());
    return v;
  }
};

void expect_global_clip(double max_norm, double p) {
  TwoGrads t;
  double total = 0;
  for (double g : kG)
    total = std::isinf(p) ? std::max(total, std::abs(g)) : total + std::pow(std::abs(g), p);
  if (!std::isinf(p)) total = std::pow(total, 1 / p);
  double coef = std::min(1.0, max_norm / (total + 1e-6));
  Tensor<1> got = clip_grad_norm(t.grads, max_norm, p);
  EXPECT_NEAR(got.into_scalar<double>(), total, 1e-5 * total);
  std::vector<double> want;
  for (double g : kG) want.push_back(g * coef);
  expect_near_all(t.all(), want, 1e-5);
}

TEST(ClipGradNorm, TwoNormOverAllParameters) { expect_global_clip(5.0, 2.0); }
TEST(ClipGradNorm, InfinityNorm) { expect_global_clip(3.0, kInfNorm); }
TEST(ClipGradNorm, OneNorm) { expect_global_clip(4.0, 1.0); }
TEST(ClipGradNorm, BelowTheLimitLeavesGradients) { expect_global_clip(1000.0, 2.0); }

TEST(ClipGradNorm, BadArgumentsThrow) {
  TwoGrads t;
  expect_error([&] { clip_grad_norm(t.grads, -1); }, {"clip_grad_norm", "max_norm"});
}

}  // namespace
}  // namespace ember::optim
