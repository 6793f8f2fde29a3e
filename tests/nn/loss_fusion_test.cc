// Where the device fuses (Vulkan, CUDA, the compiled CPU), cross-entropy's forward is one row
// kernel (the row's maximum, its sum of exponentials and the target's score together, the class
// mask computed in it from the targets, and the batch mean as a total over its rows) and its
// backward one row kernel (was 3 and 5 with a gather, then 3 and 2): counted with the frontend's
// stats; the values against plain loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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
  // The fused kernels' values against plain loops: the mean over rows of log-sum-exp minus the
  // target's score, and its gradient (softmax minus the one-hot target) / batch.
  std::vector<double> x = scores.to_data().to_vec<double>();
  double want = 0;
  std::vector<double> want_grad(x.size());
  for (int r = 0; r < 64; ++r) {
    double m = x[r * 10];
    for (int c = 1; c < 10; ++c) m = std::max(m, x[r * 10 + c]);
    double sum = 0;
    for (int c = 0; c < 10; ++c) sum += std::exp(x[r * 10 + c] - m);
    want += (std::log(sum) + m - x[r * 10 + 3]) / 64;
    for (int c = 0; c < 10; ++c) {
      want_grad[r * 10 + c] = (std::exp(x[r * 10 + c] - m) / sum - (c == 3 ? 1 : 0)) / 64;
    }
  }
  EXPECT_NEAR(loss.to_data().to_vec<double>()[0], want, 1e-5);
  std::vector<double> got_grad = scores.grad(loss.backward())->to_data().to_vec<double>();
  for (size_t i = 0; i < got_grad.size(); ++i) ASSERT_NEAR(got_grad[i], want_grad[i], 1e-6) << i;
  if (fwd.fused) {
    EXPECT_EQ(fwd.kernels, 1);
    EXPECT_EQ(bwd.kernels, 1);
  }
}

}  // namespace
}  // namespace ember::nn
