// Adam (with and without amsgrad, with L2 weight decay) and AdamW: 5-step trajectories against
// the published update rules written out on host doubles.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

struct AdamHost {
  double b1 = 0.9, b2 = 0.999, eps = 1e-5, wd = 0;
  bool amsgrad = false, decoupled = false;
  std::vector<double> m = std::vector<double>(8, 0.0), v = m, v_max = m;

  // Kingma and Ba's Algorithm 1 (with PyTorch's amsgrad and L2 / AdamW's decoupled decay).
  void step(HostLinear& h, int t, double lr) {
    std::vector<double> g = h.grads();
    for (size_t i = 0; i < g.size(); ++i) {
      double gi = decoupled ? g[i] : g[i] + wd * h.p[i];
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      v_max[i] = std::max(v_max[i], v[i]);
      double m_hat = m[i] / (1 - std::pow(b1, t));
      double v_hat = (amsgrad ? v_max[i] : v[i]) / (1 - std::pow(b2, t));
      double w = decoupled ? h.p[i] * (1 - lr * wd) : h.p[i];
      h.p[i] = w - lr * m_hat / (std::sqrt(v_hat) + eps);
    }
  }
};

template <class Opt>
void expect_trajectory(Opt opt, AdamHost ref, double base_lr) {
  nn::Linear model = fixed_linear();
  HostLinear h;
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    double lr = lr_at(k, base_lr);
    model = opt.step(lr, model, fixed_grads(model));
    ref.step(h, k + 1, lr);
    expect_near_all(params_of(model), h.p, 2e-5);
  }
}

TEST(Adam, BurnDefaults) {
  AdamConfig c;
  EXPECT_EQ(c.beta_1, 0.9);
  EXPECT_EQ(c.beta_2, 0.999);
  EXPECT_EQ(c.epsilon, 1e-5);  // PyTorch: 1e-8
  EXPECT_FALSE(c.amsgrad);
  EXPECT_EQ(AdamWConfig().weight_decay, 1e-4);
}

TEST(Adam, Trajectory) { expect_trajectory(AdamConfig().init(), AdamHost{}, 0.05); }

TEST(Adam, TrajectoryWithOtherBetasAndWeightDecay) {
  auto c =
      AdamConfig().with_beta_1(0.8).with_beta_2(0.99).with_epsilon(1e-3).with_weight_decay(0.1);
  expect_trajectory(c.init(), AdamHost{0.8, 0.99, 1e-3, 0.1}, 0.05);
}

TEST(Adam, AmsgradTrajectory) {
  // beta_2 0.5 lets v fall below its running maximum within 5 steps, so amsgrad differs.
  auto c = AdamConfig().with_beta_2(0.5).with_amsgrad(true);
  AdamHost ref{0.9, 0.5, 1e-5, 0, true};
  expect_trajectory(c.init(), ref, 0.05);
  AdamHost plain{0.9, 0.5, 1e-5, 0, false};
  HostLinear a, b;
  for (int k = 0; k < 5; ++k) {
    ref.step(a, k + 1, 0.05);
    plain.step(b, k + 1, 0.05);
  }
  EXPECT_NE(a.p, b.p);  // the amsgrad case is not vacuous
}

TEST(AdamW, TrajectoryWithDecoupledWeightDecay) {
  auto c = AdamWConfig().with_weight_decay(0.3);
  AdamHost ref{0.9, 0.999, 1e-5, 0.3, false, true};
  expect_trajectory(c.init(), ref, 0.05);
}

TEST(AdamW, AmsgradTrajectory) {
  auto c = AdamWConfig().with_beta_2(0.5).with_amsgrad(true);
  AdamHost ref{0.9, 0.5, 1e-5, 1e-4, true, true};
  expect_trajectory(c.init(), ref, 0.05);
}

TEST(Adam, ConfigRoundTripsThroughJson) {
  auto c = AdamConfig().with_amsgrad(true).with_grad_clipping(GradientClippingConfig::norm(2));
  EXPECT_EQ(AdamConfig::from_json(c.to_json()), c);
}

TEST(Adam, BadConfigsThrow) {
  expect_error([] { AdamConfig().with_beta_1(1.0).init(); }, {"AdamConfig", "beta_1"});
  expect_error([] { AdamWConfig().with_epsilon(0).init(); }, {"AdamWConfig", "epsilon"});
  expect_error([] { AdamWConfig().with_weight_decay(-1).init(); }, {"AdamWConfig", "weight_decay"});
}

}  // namespace
}  // namespace ember::optim
