// Where the device fuses (Vulkan, CUDA), cross-entropy's forward is one row kernel (the row's
// maximum, its sum of exponentials and the target's score together; the class mask is computed
// in it from the targets, and backward computes it again instead of keeping it) and the batch
// mean; its backward one row kernel (was 3 and 5 with a gather, then 3 and 2): counted with the
// frontend's stats.
#include <gtest/gtest.h>

#include "frontend/stats.h"
#include "nn/nn.h"
#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;

struct Counts {
  int64_t kernels = 0;
  bool fused = false;
};

template <class F>
Counts count(F&& f) {
  sync(dev());
  reset_stats(dev());
  f();
  sync(dev());
  Stats s = stats(dev());
  return {s.kernels_launched, s.ops_fused > 0};
}

TEST(LossFusion, CrossEntropyKernels) {
  auto scores = Tensor<2>::random({64, 10}, Distribution::normal(0, 1), dev()).require_grad();
  auto targets = Tensor<1, Int>::from_data(
      TensorData(std::vector<int64_t>(64, 3), Shape{64}).convert(DType::I64), dev());
  scores.to_data();
  targets.to_data();
  CrossEntropyLoss ce = CrossEntropyLossConfig().init();
  Tensor<1> loss;
  Counts fwd = count([&] {
    loss = ce.forward(scores, targets);
    loss.to_data();
  });
  Counts bwd = count([&] {
    auto g = scores.grad(loss.backward());
    g->to_data();
  });
  std::printf("cross-entropy on %s: forward %lld kernels, backward %lld kernels\n",
              dev().to_string().c_str(), static_cast<long long>(fwd.kernels),
              static_cast<long long>(bwd.kernels));
  if (fwd.fused) {
    EXPECT_LE(fwd.kernels, 2);
    EXPECT_LE(bwd.kernels, 1);
  }
}

}  // namespace
}  // namespace ember::nn
