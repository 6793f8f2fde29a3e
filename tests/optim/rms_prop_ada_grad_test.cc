// RmsProp (plain, centered with momentum, weight decay) and AdaGrad (lr decay, weight decay):
// 5-step trajectories against the published update rules on host doubles.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

struct RmsPropHost {
  double alpha = 0.99, eps = 1e-5, momentum = 0, wd = 0;
  bool centered = false;
  std::vector<double> sq = std::vector<double>(8, 0.0), ga = sq, buf = sq;

  // PyTorch's RMSprop pseudo-code, element by element.
  void step(HostLinear& h, double lr) {
    std::vector<double> g = h.grads();
    for (size_t i = 0; i < g.size(); ++i) {
      double gi = g[i] + wd * h.p[i];
      sq[i] = alpha * sq[i] + (1 - alpha) * gi * gi;
      double s = sq[i];
      if (centered) {
        ga[i] = alpha * ga[i] + (1 - alpha) * gi;
        s -= ga[i] * ga[i];
      }
      double d = gi / (std::sqrt(s) + eps);
      if (momentum > 0) d = buf[i] = momentum * buf[i] + d;
      h.p[i] -= lr * d;
    }
  }
};

struct AdaGradHost {
  double lr_decay = 0, eps = 1e-5, wd = 0;
  std::vector<double> sum = std::vector<double>(8, 0.0);

  // PyTorch's Adagrad pseudo-code, element by element; t from 1.
  void step(HostLinear& h, int t, double lr) {
    std::vector<double> g = h.grads();
    double clr = lr / (1 + (t - 1) * lr_decay);
    for (size_t i = 0; i < g.size(); ++i) {
      double gi = g[i] + wd * h.p[i];
      sum[i] += gi * gi;
      h.p[i] -= clr * gi / (std::sqrt(sum[i]) + eps);
    }
  }
};

template <class Opt, class Ref>
void expect_trajectory(Opt opt, Ref ref) {
  nn::Linear model = fixed_linear();
  HostLinear h;
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    double lr = lr_at(k, 0.01);
    model = opt.step(lr, model, fixed_grads(model));
    if constexpr (std::is_same_v<Ref, AdaGradHost>) {
      ref.step(h, k + 1, lr);
    } else {
      ref.step(h, lr);
    }
    expect_near_all(params_of(model), h.p, 2e-5);
  }
}

TEST(RmsProp, Trajectory) { expect_trajectory(RmsPropConfig().init(), RmsPropHost{}); }

TEST(RmsProp, CenteredWithMomentumAndWeightDecay) {
  auto c = RmsPropConfig().with_alpha(0.9).with_centered(true).with_momentum(0.5).with_weight_decay(
      0.05);
  expect_trajectory(c.init(), RmsPropHost{0.9, 1e-5, 0.5, 0.05, true});
}

TEST(AdaGrad, Trajectory) { expect_trajectory(AdaGradConfig().init(), AdaGradHost{}); }

TEST(AdaGrad, LrDecayAndWeightDecay) {
  auto c = AdaGradConfig().with_lr_decay(0.3).with_weight_decay(0.1);
  expect_trajectory(c.init(), AdaGradHost{0.3, 1e-5, 0.1});
}

TEST(RmsProp, BadConfigsThrow) {
  expect_error([] { RmsPropConfig().with_alpha(1.5).init(); }, {"RmsPropConfig", "alpha"});
  expect_error([] { AdaGradConfig().with_lr_decay(-1).init(); }, {"AdaGradConfig", "lr_decay"});
}

}  // namespace
}  // namespace ember::optim
