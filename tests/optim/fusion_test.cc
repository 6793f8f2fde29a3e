// An optimizer step is recorded as lazy ops: nothing runs until a value is read, and where the
// device fuses (Vulkan, CUDA), one parameter's update is one kernel, not one per op.
#include <gtest/gtest.h>

#include "frontend/stats.h"
#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

TEST(Fusion, AdamStepIsLazyAndFuses) {
  nn::Linear model = fixed_linear();
  GradientsParams grads = fixed_grads(model);
  for (ParamId id : grads.ids()) grads.get_raw(id)->to_data();  // the backward runs here
  Adam adam = AdamConfig().with_amsgrad(true).init();
  reset_stats(dev());
  nn::Linear next = adam.step(0.1, model, std::move(grads));
  Stats recorded = stats(dev());
  EXPECT_GT(recorded.ops_recorded, 0);
  EXPECT_EQ(recorded.kernels_launched, 0);  // lazy: nothing ran yet
  params_of(next);                          // one sync runs both updates
  Stats ran = stats(dev());
  std::printf("Adam step over 2 parameters: %lld ops recorded, %lld kernels, %lld ops fused\n",
              static_cast<long long>(ran.ops_recorded),
              static_cast<long long>(ran.kernels_launched), static_cast<long long>(ran.ops_fused));
  // Fused, each parameter's update (weight, both moments, the amsgrad maximum) is one kernel.
  if (ran.ops_fused > 0) EXPECT_LE(ran.kernels_launched, 2);
}

}  // namespace
}  // namespace ember::optim

namespace ember::optim {
namespace {

using namespace testing;

// Six layers in two shape classes: weights [8, 8] and [8, 16], biases [8] and [16].
struct Stack {
  nn::Linear a1, a2, a3, b1, b2, b3;
  EMBER_MODULE(Stack, a1, a2, a3, b1, b2, b3)
};

Stack stack_model() {
  return Stack{nn::LinearConfig(8, 8).init(dev()),  nn::LinearConfig(8, 8).init(dev()),
               nn::LinearConfig(8, 8).init(dev()),  nn::LinearConfig(8, 16).init(dev()),
               nn::LinearConfig(8, 16).init(dev()), nn::LinearConfig(8, 16).init(dev())};
}

GradientsParams stack_grads(const Stack& m) {
  auto x = Tensor<2>::ones({4, 8}, dev());
  Tensor<1> loss = Tensor<1>::zeros({1}, dev());
  nn::visit_params(m, [&](const std::string&, const auto& p) {
    loss = loss + (p.val() * p.val()).sum();  // a gradient for every parameter
  });
  (void)x;
  GradientsParams g = GradientsParams::from_grads(loss.backward(), m);
  for (ParamId id : g.ids()) g.get_raw(id)->to_data();  // the backward runs here
  return g;
}

// Parameters of one shape class update in one kernel: 12 parameters, 4 shape classes.
TEST(Fusion, AdamStepIsOneKernelPerShapeClass) {
  Stack m = stack_model();
  GradientsParams grads = stack_grads(m);
  Adam adam = AdamConfig().init();
  reset_stats(dev());
  Stack next = adam.step(0.1, m, std::move(grads));
  nn::visit_params(next, [](const std::string&, const auto& p) { p.val().to_data(); });
  Stats ran = stats(dev());
  std::printf("Adam step over 12 parameters in 4 shape classes: %lld kernels\n",
              static_cast<long long>(ran.kernels_launched));
  if (ran.ops_fused > 0) EXPECT_LE(ran.kernels_launched, 4);
}

// The global norm is one reduction over every gradient, not one per parameter.
TEST(Fusion, GlobalNormClipIsOneReduction) {
  Stack m = stack_model();
  GradientsParams grads = stack_grads(m);
  reset_stats(dev());
  Tensor<1> total = clip_grad_norm(grads, 1e-3);
  for (ParamId id : grads.ids()) grads.get_raw(id)->to_data();
  total.to_data();
  Stats ran = stats(dev());
  std::printf("clip_grad_norm over 12 parameters in 4 shape classes: %lld kernels\n",
              static_cast<long long>(ran.kernels_launched));
  // One reduction, then one scaling kernel per shape class.
  if (ran.ops_fused > 0) EXPECT_LE(ran.kernels_launched, 1 + 4);
}

}  // namespace
}  // namespace ember::optim
