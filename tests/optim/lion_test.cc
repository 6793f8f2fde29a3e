// Lion: 5-step trajectories against the paper's update rule on host doubles.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

// Algorithm 2 of Chen et al. 2023, element by element.
struct LionHost {
  double b1 = 0.9, b2 = 0.99, wd = 0;
  std::vector<double> m = std::vector<double>(8, 0.0);

  void step(HostLinear& h, double lr) {
    std::vector<double> g = h.grads();
    for (size_t i = 0; i < g.size(); ++i) {
      double c = b1 * m[i] + (1 - b1) * g[i];
      double sign = (c > 0) - (c < 0);
      h.p[i] = h.p[i] * (1 - lr * wd) - lr * sign;
      m[i] = b2 * m[i] + (1 - b2) * g[i];
    }
  }
};

void expect_lion_trajectory(const LionConfig& config, LionHost ref) {
  Lion lion = config.init();
  nn::Linear model = fixed_linear();
  HostLinear h;
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    double lr = lr_at(k, 0.01);
    model = lion.step(lr, model, fixed_grads(model));
    ref.step(h, lr);
    expect_near_all(params_of(model), h.p, 1e-6);
  }
}

TEST(Lion, Trajectory) { expect_lion_trajectory(LionConfig(), LionHost{}); }

TEST(Lion, TrajectoryWithWeightDecay) {
  expect_lion_trajectory(LionConfig().with_beta_1(0.8).with_beta_2(0.95).with_weight_decay(0.5),
                         LionHost{0.8, 0.95, 0.5});
}

TEST(Lion, BadConfigThrows) {
  expect_error([] { LionConfig().with_beta_2(1.5).init(); }, {"LionConfig", "beta_2"});
}

}  // namespace
}  // namespace ember::optim
