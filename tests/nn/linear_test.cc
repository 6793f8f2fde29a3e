// Linear: forward against plain loops, Burn's default initialisation bounds, gradients in f64,
// misuse.
#include <gtest/gtest.h>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::host;

// y[r][o] = sum_i x[r][i] * w[i][o] + b[o]
std::vector<double> reference(const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b, int64_t rows, int64_t in, int64_t out) {
  std::vector<double> y(rows * out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double s = b.empty() ? 0 : b[o];
      for (int64_t i = 0; i < in; ++i) s += x[r * in + i] * w[i * out + o];
      y[r * out + o] = s;
    }
  }
  return y;
}

TEST(Linear, ForwardMatchesLoopsForEveryRank) {
  Linear l = LinearConfig(3, 2).init(dev());
  std::vector<double> x = {0.5, -1, 2, 3, 0.25, -0.75, 1, 1, 1, -2, 0, 4};
  auto want = reference(x, host(l.weight.val()), host(l.bias->val()), 4, 3, 2);
  testing::expect_tensor(l.forward(testing::from_host<2>(x, Shape{4, 3})), Shape{4, 2}, want);
  testing::expect_tensor(l.forward(testing::from_host<3>(x, Shape{2, 2, 3})), Shape{2, 2, 2}, want);
  std::vector<double> x1(x.begin(), x.begin() + 3);
  testing::expect_tensor(l.forward(testing::from_host<1>(x1, Shape{3})), Shape{2},
                         {want[0], want[1]});
}

TEST(Linear, WithoutBias) {
  Linear l = LinearConfig(2, 3).with_bias(false).init(dev());
  EXPECT_FALSE(l.bias.has_value());
  std::vector<double> x = {1, 2};
  testing::expect_tensor(l.forward(testing::from_host<2>(x, Shape{1, 2})), Shape{1, 3},
                         reference(x, host(l.weight.val()), {}, 1, 2, 3));
}

TEST(Linear, DefaultInitIsUniformWithinOneOverSqrtFanIn) {
  Linear l = LinearConfig(64, 256).init(dev());
  const double bound = 1.0 / std::sqrt(64.0);
  auto w = host(l.weight.val());
  double lo = 1, hi = -1, sum2 = 0;
  for (double v : w) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum2 += v * v;
  }
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_LT(lo, -0.95 * bound);  // the whole range is used
  EXPECT_GT(hi, 0.95 * bound);
  EXPECT_NEAR(sum2 / w.size(), bound * bound / 3, 0.05 * bound * bound / 3);
  for (double v : host(l.bias->val())) EXPECT_LE(std::abs(v), bound);
}

TEST(Linear, GradientsMatchCentralDifferences) {
  Linear l = LinearConfig(3, 2).init(dev());
  auto x = testing::from_host<2>({0.5, -1, 2, 3, 0.25, -0.75}, Shape{2, 3});
  testing::expect_grads<Linear, 2>(l, x, [](const Linear& m, const Tensor<2>& in) {
    auto y = m.forward(in);
    return (y * y).sum();
  });
}

TEST(Linear, MisuseNamesTheLayer) {
  Linear l = LinearConfig(3, 2).init(dev());
  testing::expect_error(
      [&] {
        l.forward(Tensor<2>::ones(Shape{2, 5}, dev()));
      },
      {"Linear", "3 input features", "f32[2, 5]"});
  testing::expect_error([] { LinearConfig(0, 2).init(dev()); }, {"LinearConfig", "d_input"});
}

}  // namespace
}  // namespace ember::nn
