// Sgd: 5-step trajectories against the update rule written out on host doubles.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

struct SgdHyper {
  double wd = 0, momentum = 0, dampening = 0;
  bool use_momentum = false, nesterov = false;
};

// PyTorch's SGD pseudo-code, element by element.
void sgd_reference_step(HostLinear& h, std::vector<double>& buf, int k, double lr,
                        const SgdHyper& c) {
  std::vector<double> g = h.grads();
  for (size_t i = 0; i < g.size(); ++i) {
    double gi = g[i] + c.wd * h.p[i];
    if (c.use_momentum) {
      buf[i] = k == 0 ? gi : c.momentum * buf[i] + (1 - c.dampening) * gi;
      gi = c.nesterov ? gi + c.momentum * buf[i] : buf[i];
    }
    h.p[i] -= lr * gi;
  }
}

void expect_sgd_trajectory(const SgdConfig& config, const SgdHyper& c) {
  Sgd sgd = config.init();
  nn::Linear model = fixed_linear();
  HostLinear h;
  std::vector<double> buf(8, 0.0);
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    double lr = lr_at(k, 0.1);
    model = sgd.step(lr, model, fixed_grads(model));
    sgd_reference_step(h, buf, k, lr, c);
    expect_near_all(params_of(model), h.p, 1e-5);
  }
}

TEST(Sgd, PlainTrajectory) { expect_sgd_trajectory(SgdConfig(), SgdHyper{}); }

TEST(Sgd, MomentumWithDampeningAndWeightDecay) {
  auto config = SgdConfig().with_weight_decay(0.05).with_momentum(
      MomentumConfig().with_momentum(0.8).with_dampening(0.2));
  expect_sgd_trajectory(config, {0.05, 0.8, 0.2, true, false});
}

TEST(Sgd, NesterovMomentumWithWeightDecay) {
  auto config = SgdConfig().with_weight_decay(0.01).with_momentum(
      MomentumConfig().with_momentum(0.9).with_dampening(0).with_nesterov(true));
  expect_sgd_trajectory(config, {0.01, 0.9, 0, true, true});
}

TEST(Sgd, BurnMomentumDefaults) {
  MomentumConfig m;
  EXPECT_EQ(m.momentum, 0.9);
  EXPECT_EQ(m.dampening, 0.1);
  EXPECT_FALSE(m.nesterov);
  expect_sgd_trajectory(SgdConfig().with_momentum(m), {0, 0.9, 0.1, true, false});
}

TEST(Sgd, ConfigRoundTripsThroughJson) {
  auto c = SgdConfig().with_weight_decay(0.01).with_momentum(MomentumConfig().with_nesterov(true));
  EXPECT_EQ(SgdConfig::from_json(c.to_json()), c);
}

TEST(Sgd, BadConfigsThrow) {
  expect_error([] { SgdConfig().with_weight_decay(-0.1).init(); }, {"SgdConfig", "weight_decay"});
  expect_error([] { SgdConfig().with_momentum(MomentumConfig().with_dampening(2)).init(); },
               {"SgdConfig", "dampening"});
  expect_error([] { SgdConfig().with_grad_clipping(GradientClippingConfig::value(-1)).init(); },
               {"GradientClipping", "threshold"});
}

}  // namespace
}  // namespace ember::optim
