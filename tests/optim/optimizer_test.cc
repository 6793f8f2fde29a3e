// What every optimizer shares: frozen parameters and parameters without a gradient are left
// alone, ids are kept, bad inputs throw naming the optimizer, a copy resumes the same trajectory.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

TEST(Optimizer, FrozenParameterIsNotUpdated) {
  nn::Linear model = fixed_linear();
  model.bias = model.bias->set_require_grad(false);
  GradientsParams grads = fixed_grads(model);
  EXPECT_FALSE(grads.contains(model.bias->id()));
  // Even a gradient registered by hand for the frozen bias is not applied.
  grads.register_grad(model.bias->id(), from_host<1>({1, 1}, Shape{2}));
  Adam adam = AdamConfig().init();
  nn::Linear next = adam.step(0.1, model, grads);
  EXPECT_EQ(host(next.bias->val()), host(model.bias->val()));
  EXPECT_FALSE(next.bias->is_require_grad());
  EXPECT_EQ(next.bias->id(), model.bias->id());
  EXPECT_EQ(next.weight.id(), model.weight.id());
  EXPECT_TRUE(next.weight.is_require_grad());
  EXPECT_GT(std::abs(host(next.weight.val())[0] - kW0[0]), 1e-3);
  EXPECT_EQ(adam.num_states(), 1u);
}

TEST(Optimizer, ParameterWithoutGradientIsNotUpdated) {
  nn::Linear model = fixed_linear();
  GradientsParams grads = fixed_grads(model);
  grads.remove<2>(model.weight.id());
  Sgd sgd = SgdConfig().init();
  nn::Linear next = sgd.step(0.1, model, grads);
  EXPECT_EQ(host(next.weight.val()), host(model.weight.val()));
  EXPECT_EQ(sgd.num_states(), 1u);
}

TEST(Optimizer, NegativeLearningRateThrowsNamingTheOptimizer) {
  nn::Linear model = fixed_linear();
  Adam adam = AdamConfig().init();
  expect_error([&] { adam.step(-0.1, model, fixed_grads(model)); }, {"Adam", "learning rate"});
  AdamW adamw = AdamWConfig().init();
  expect_error([&] { adamw.step(std::nan(""), model, fixed_grads(model)); },
               {"AdamW", "learning rate"});
  EXPECT_EQ(adam.num_states(), 0u);
}

TEST(Optimizer, GradientsOfAnotherModelThrow) {
  nn::Linear model = fixed_linear();
  nn::Linear other = fixed_linear();  // same values, other ids
  Sgd sgd = SgdConfig().init();
  expect_error([&] { sgd.step(0.1, model, fixed_grads(other)); },
               {"Sgd", other.weight.id().to_string(), "does not have"});
  EXPECT_EQ(sgd.num_states(), 0u);
}

TEST(Optimizer, CopyResumesTheSameTrajectory) {
  nn::Linear model = fixed_linear();
  Adam adam = AdamConfig().with_amsgrad(true).init();
  for (int k = 0; k < 2; ++k) model = adam.step(0.05, model, fixed_grads(model));
  Adam snapshot = adam;
  nn::Linear a = model, b = model;
  for (int k = 0; k < 3; ++k) {
    a = adam.step(0.05, a, fixed_grads(a));
    b = snapshot.step(0.05, b, fixed_grads(b));
  }
  EXPECT_EQ(params_of(a), params_of(b));
}

TEST(Optimizer, LoadedStatesContinueBitIdentically) {
  nn::Linear model = fixed_linear();
  AdamW adamw = AdamWConfig().with_weight_decay(0.1).init();
  for (int k = 0; k < 2; ++k) model = adamw.step(0.05, model, fixed_grads(model));
  auto saved = adamw.states();
  nn::Linear resumed = model;
  for (int k = 0; k < 3; ++k) model = adamw.step(0.05, model, fixed_grads(model));
  AdamW fresh = AdamWConfig().with_weight_decay(0.1).init();
  fresh.load_states(saved);
  for (int k = 0; k < 3; ++k) resumed = fresh.step(0.05, resumed, fixed_grads(resumed));
  EXPECT_EQ(params_of(resumed), params_of(model));
}

TEST(Optimizer, StateFollowsTheModelToAnotherDevice) {
  // On the CPU this moves nothing; on the suite's Vulkan run the moments cross devices.
  nn::Linear model = fixed_linear();
  Adam adam = AdamConfig().init();
  nn::Linear stay = model;
  Adam adam_stay = adam;
  for (int k = 0; k < 2; ++k) {
    model = adam.step(0.05, model, fixed_grads(model));
    stay = adam_stay.step(0.05, stay, fixed_grads(stay));
  }
  model = model.to_device(Device::cpu());
  for (int k = 0; k < 2; ++k) {
    model = adam.step(0.05, model, fixed_grads(model));
    stay = adam_stay.step(0.05, stay, fixed_grads(stay));
  }
  EXPECT_EQ(model.weight.device(), Device::cpu());
  expect_near_all(params_of(model), params_of(stay), 1e-6);
  adam.to_device(Device::cpu());
  for (const auto& [id, s] : adam.states()) EXPECT_EQ(s.m.device(), Device::cpu());
}

TEST(Optimizer, PerParameterClippingBeforeTheUpdate) {
  nn::Linear model = fixed_linear();
  auto grads = fixed_grads(model);
  auto g = host(*grads.get<2>(model.weight.id()));
  Sgd sgd = SgdConfig().with_grad_clipping(GradientClippingConfig::value(0.1)).init();
  nn::Linear next = sgd.step(1.0, model, grads);
  std::vector<double> want(6);
  for (int i = 0; i < 6; ++i) want[i] = kW0[i] - std::clamp(g[i], -0.1, 0.1);
  expect_near_all(host(next.weight.val()), want, 1e-6);
}

struct Net {
  nn::Linear a, b;
  EMBER_MODULE(Net, a, b)
};

TEST(Optimizer, SubModuleGetsItsOwnOptimizer) {
  Net net{fixed_linear(), fixed_linear()};
  auto x = from_host<2>(kX, Shape{4, 3});
  Gradients grads = (net.a.forward(x) + net.b.forward(x)).sum().backward();
  Sgd sgd = SgdConfig().init();
  nn::Linear a = sgd.step(0.1, net.a, GradientsParams::from_grads(grads, net.a));
  // d sum(x W + b) / dW[i][o] = sum_r x[r][i]
  std::vector<double> want = kW0;
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int r = 0; r < 4; ++r) s += kX[r * 3 + i];
    want[i * 2] -= 0.1 * s;
    want[i * 2 + 1] -= 0.1 * s;
  }
  expect_near_all(host(a.weight.val()), want, 1e-6);
  // The other part's gradients are not the sub-module's.
  expect_error([&] { sgd.step(0.1, net.a, GradientsParams::from_grads(grads, net)); }, {"Sgd"});
}

}  // namespace
}  // namespace ember::optim
