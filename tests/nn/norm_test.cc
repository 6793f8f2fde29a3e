// Normalisation layers against host references, batch norm's running statistics over several
// steps against the formula, valid() on running statistics, gradients in f64, misuse.
#include <gtest/gtest.h>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

// Standardises each consecutive run of `group` values (population variance).
std::vector<double> standardize_groups(const std::vector<double>& x, size_t group, double eps) {
  std::vector<double> y(x.size());
  for (size_t start = 0; start < x.size(); start += group) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < group; ++i) mean += x[start + i] / group;
    for (size_t i = 0; i < group; ++i) var += (x[start + i] - mean) * (x[start + i] - mean) / group;
    for (size_t i = 0; i < group; ++i) y[start + i] = (x[start + i] - mean) / std::sqrt(var + eps);
  }
  return y;
}

const std::vector<double> kX = {0.9601, 0.7277, 0.1270, 0.5441, 0.6272, 0.9034, 0.4066, 0.7179,
                                0.9378, 0.7230, 0.3544, 0.9591, 0.6356, 0.1362, 0.1333, 0.7287,
                                0.0249, 0.9509, 0.3791, 0.2481, 0.6600, 0.5945, 0.5424, 0.4767};

// A module with gamma 1 + 0.1 * i and beta -0.2 * i, so the affine part is tested too.
template <Module M>
M with_affine(const M& m) {
  return map_params(m, [](const std::string& path, const auto& p) {
    std::vector<double> v(p.num_elements());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = path.ends_with("gamma") ? 1 + 0.1 * i : -0.2 * static_cast<double>(i);
    }
    return p.with_value(from_host<1>(v, p.shape()));
  });
}

TEST(LayerNorm, ForwardMatchesReference) {
  LayerNorm ln = with_affine(LayerNormConfig(4).init(dev()));
  auto y = ln.forward(from_host<3>(kX, Shape{2, 3, 4}));
  auto want = standardize_groups(kX, 4, 1e-5);
  for (size_t i = 0; i < want.size(); ++i) want[i] = want[i] * (1 + 0.1 * (i % 4)) - 0.2 * (i % 4);
  testing::expect_tensor(y, Shape{2, 3, 4}, want, 1e-4);
}

TEST(RmsNorm, ForwardMatchesReference) {
  RmsNorm rn = with_affine(RmsNormConfig(4).init(dev()));
  auto y = rn.forward(from_host<2>(kX, Shape{6, 4}));
  std::vector<double> want(kX.size());
  for (size_t r = 0; r < 6; ++r) {
    double ms = 0;
    for (size_t i = 0; i < 4; ++i) ms += kX[r * 4 + i] * kX[r * 4 + i] / 4;
    for (size_t i = 0; i < 4; ++i)
      want[r * 4 + i] = kX[r * 4 + i] / std::sqrt(ms + 1e-5) * (1 + 0.1 * i);
  }
  testing::expect_tensor(y, Shape{6, 4}, want, 1e-4);
}

TEST(GroupNorm, ForwardMatchesReference) {
  // [2, 4, 3]: 2 groups of 2 channels x 3 positions = 6 values per group.
  GroupNorm gn = with_affine(GroupNormConfig(2, 4).init(dev()));
  auto y = gn.forward(from_host<3>(kX, Shape{2, 4, 3}));
  auto want = standardize_groups(kX, 6, 1e-5);
  for (size_t i = 0; i < want.size(); ++i) {
    size_t c = (i / 3) % 4;
    want[i] = want[i] * (1 + 0.1 * c) - 0.2 * c;
  }
  testing::expect_tensor(y, Shape{2, 4, 3}, want, 1e-4);
}

TEST(InstanceNorm, ForwardMatchesReference) {
  InstanceNorm in = InstanceNormConfig(3).with_affine(false).init(dev());
  EXPECT_EQ(in.num_params(), 0);
  auto y = in.forward(from_host<4>(kX, Shape{2, 3, 2, 2}));
  testing::expect_tensor(y, Shape{2, 3, 2, 2}, standardize_groups(kX, 4, 1e-5), 1e-4);
}

// Per-channel batch statistics of x [n, c, rest] (population variance).
void channel_stats(const std::vector<double>& x, size_t n, size_t c, size_t rest,
                   std::vector<double>& mean, std::vector<double>& var) {
  mean.assign(c, 0);
  var.assign(c, 0);
  const double count = static_cast<double>(n * rest);
  for (size_t b = 0; b < n; ++b)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t r = 0; r < rest; ++r) mean[ch] += x[(b * c + ch) * rest + r] / count;
  for (size_t b = 0; b < n; ++b)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t r = 0; r < rest; ++r) {
        double d = x[(b * c + ch) * rest + r] - mean[ch];
        var[ch] += d * d / count;
      }
}

TEST(BatchNorm, TrainingForwardAndRunningStatisticsOverSteps) {
  BatchNorm bn = BatchNormConfig(3).with_momentum(0.2).init(dev());
  std::vector<double> rm(3, 0.0), rv(3, 1.0);
  for (int step = 0; step < 3; ++step) {
    std::vector<double> x = kX;
    for (double& v : x) v = v * (1 + step) + step;  // a different batch each step
    auto y = bn.forward(from_host<4>(x, Shape{2, 3, 2, 2}));
    std::vector<double> mean, var;
    channel_stats(x, 2, 3, 4, mean, var);
    std::vector<double> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      size_t ch = (i / 4) % 3;
      want[i] = (x[i] - mean[ch]) / std::sqrt(var[ch] + 1e-5);
    }
    testing::expect_tensor(y, Shape{2, 3, 2, 2}, want, 1e-4);
    for (size_t ch = 0; ch < 3; ++ch) {
      rm[ch] = rm[ch] * 0.8 + mean[ch] * 0.2;
      rv[ch] = rv[ch] * 0.8 + var[ch] * 0.2;
    }
    testing::expect_near_all(host(bn.running_mean.value()), rm, 1e-5);
    testing::expect_near_all(host(bn.running_var.value()), rv, 1e-5);
  }
  // valid(): the running statistics, not the batch's, and no further update.
  BatchNorm v = bn.valid();
  auto y = v.forward(from_host<4>(kX, Shape{2, 3, 2, 2}));
  std::vector<double> want(kX.size());
  for (size_t i = 0; i < kX.size(); ++i) {
    size_t ch = (i / 4) % 3;
    want[i] = (kX[i] - rm[ch]) / std::sqrt(rv[ch] + 1e-5);
  }
  testing::expect_tensor(y, Shape{2, 3, 2, 2}, want, 1e-4);
  testing::expect_near_all(host(v.running_mean.value()), rm, 1e-5);
  EXPECT_EQ(v.running_mean.id(), bn.running_mean.id());
}

TEST(BatchNorm, EmptyBatchLeavesRunningStatisticsAlone) {
  BatchNorm bn = BatchNormConfig(3).init(dev());
  auto y = bn.forward(Tensor<4>::zeros(Shape{0, 3, 2, 2}, dev()));
  EXPECT_EQ(y.shape(), (Shape{0, 3, 2, 2}));
  testing::expect_near_all(host(bn.running_mean.value()), {0, 0, 0}, 0);
  testing::expect_near_all(host(bn.running_var.value()), {1, 1, 1}, 0);
}

TEST(BatchNorm, RankTwoInput) {
  BatchNorm bn = BatchNormConfig(4).init(dev());
  auto y = bn.forward(from_host<2>(kX, Shape{6, 4}));
  std::vector<double> mean, var;
  channel_stats(kX, 6, 4, 1, mean, var);
  std::vector<double> want(kX.size());
  for (size_t i = 0; i < kX.size(); ++i) {
    want[i] = (kX[i] - mean[i % 4]) / std::sqrt(var[i % 4] + 1e-5);
  }
  testing::expect_tensor(y, Shape{6, 4}, want, 1e-4);
}

template <Module M, int D>
void check_grads(const M& m, const Shape& shape) {
  std::vector<double> x(kX.begin(), kX.begin() + shape.numel());
  // A loss that is not invariant to the normalisation (the sum of a standardised row is 0).
  auto w = from_host<D>(x, shape, DType::F64) * 3.0 - 1.0;
  testing::expect_grads<M, D>(
      m, from_host<D>(x, shape),
      [w](const M& mm, const Tensor<D>& in) {
        auto y = mm.forward(in);
        return (y * y * w.detach()).sum();
      },
      1e-5);
}

TEST(Norms, GradientsMatchCentralDifferences) {
  check_grads<LayerNorm, 2>(with_affine(LayerNormConfig(4).init(dev())), Shape{3, 4});
  check_grads<RmsNorm, 2>(with_affine(RmsNormConfig(4).init(dev())), Shape{3, 4});
  check_grads<GroupNorm, 3>(with_affine(GroupNormConfig(2, 4).init(dev())), Shape{2, 4, 3});
  check_grads<InstanceNorm, 3>(with_affine(InstanceNormConfig(2).init(dev())), Shape{2, 2, 3});
  check_grads<BatchNorm, 3>(with_affine(BatchNormConfig(2).init(dev())), Shape{3, 2, 2});
}

TEST(Norms, MisuseNamesTheLayer) {
  testing::expect_error(
      [] {
        LayerNormConfig(4).init(dev()).forward(Tensor<2>::ones(Shape{2, 3}, dev()));
      },
      {"LayerNorm", "4 features", "f32[2, 3]"});
  testing::expect_error(
      [] { BatchNormConfig(3).init(dev()).forward(Tensor<1>::ones(Shape{3}, dev())); },
      {"BatchNorm", "rank 2", "f32[3]"});
  testing::expect_error(
      [] {
        BatchNormConfig(3).init(dev()).forward(Tensor<3>::ones(Shape{2, 4, 5}, dev()));
      },
      {"BatchNorm", "3 channels", "f32[2, 4, 5]"});
  testing::expect_error([] { GroupNormConfig(3, 4).init(dev()); },
                        {"GroupNormConfig", "divisible"});
  testing::expect_error([] { BatchNormConfig(3).with_momentum(1.5).init(dev()); },
                        {"BatchNormConfig", "momentum"});
  testing::expect_error(
      [] {
        InstanceNormConfig(2).init(dev()).forward(Tensor<3>::ones(Shape{1, 3, 2}, dev()));
      },
      {"InstanceNorm", "2 channels"});
}

}  // namespace
}  // namespace ember::nn
