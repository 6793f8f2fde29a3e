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
