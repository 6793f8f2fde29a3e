// Losses against references computed on host values, reductions, gradients in f64, misuse.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

const std::vector<double> kScores = {1.0,  -0.5, 2.0, 0.3, 0.0, 0.2,  0.1, 0.4,
                                     -1.2, 0.9,  0.5, 0.5, 3.0, -2.0, 0.0, 1.0};
const std::vector<int64_t> kTargets = {2, 3, 1, 0};

// log_softmax of row r of [4, 4] scores.
std::vector<double> log_softmax_row(const std::vector<double>& s, int r) {
  double mx = -1e300, sum = 0;
  for (int c = 0; c < 4; ++c) mx = std::max(mx, s[r * 4 + c]);
  for (int c = 0; c < 4; ++c) sum += std::exp(s[r * 4 + c] - mx);
  std::vector<double> out;
  for (int c = 0; c < 4; ++c) out.push_back(s[r * 4 + c] - mx - std::log(sum));
  return out;
}

// PyTorch's cross-entropy with weights w, smoothing a and an ignored class; returns
// {sum of costs, sum of weights of counted samples}.
std::pair<double, double> ce_reference(const std::vector<double>& w, double a, int64_t ignore) {
  double total = 0, weight = 0;
  for (int r = 0; r < 4; ++r) {
    if (kTargets[r] == ignore) continue;
    auto lp = log_softmax_row(kScores, r);
    double all = 0;
    for (int c = 0; c < 4; ++c) all += w[c] * -lp[c];
    total += (1 - a) * w[kTargets[r]] * -lp[kTargets[r]] + a / 4 * all;
    weight += w[kTargets[r]];
  }
  return {total, weight};
}

Tensor<2> scores() { return from_host<2>(kScores, Shape{4, 4}); }
Tensor<1, Int> targets() {
  return Tensor<1, Int>::from_data(TensorData(kTargets, Shape{4}).convert(DType::I32), dev());
}
double scalar(const Tensor<1>& t) { return t.into_scalar<double>(); }

TEST(CrossEntropyLoss, FromLogits) {
  auto [sum, n] = ce_reference({1, 1, 1, 1}, 0, -1);
  auto loss = CrossEntropyLossConfig().init();
  EXPECT_NEAR(scalar(loss.forward(scores(), targets())), sum / 4, 1e-6);
  EXPECT_NEAR(scalar(CrossEntropyLossConfig()
                         .with_reduction(Reduction::Sum)
                         .init()
                         .forward(scores(), targets())),
              sum, 1e-5);
  auto per_sample = host(loss.forward_no_reduction(scores(), targets()));
  for (int r = 0; r < 4; ++r) {
    EXPECT_NEAR(per_sample[r], -log_softmax_row(kScores, r)[kTargets[r]], 1e-6);
  }
}

TEST(CrossEntropyLoss, FromProbabilities) {
  auto probs = activation::softmax(scores(), 1);
  auto loss = CrossEntropyLossConfig().with_logits(false).init();
  EXPECT_NEAR(scalar(loss.forward(probs, targets())), ce_reference({1, 1, 1, 1}, 0, -1).first / 4,
              1e-6);
}

TEST(CrossEntropyLoss, WeightsSmoothingAndPadding) {
  std::vector<double> w = {0.5, 2.0, 1.0, 3.0};
  auto [sum, weight] = ce_reference(w, 0.1, 3);
  auto loss = CrossEntropyLossConfig()
                  .with_weights(w)
                  .with_smoothing(0.1)
                  .with_pad_tokens(std::vector<int64_t>{3})
                  .init();
  EXPECT_NEAR(scalar(loss.forward(scores(), targets())), sum / weight, 1e-6);
  // Padding targets may be out of range (PyTorch's -100).
  auto padded = Tensor<1, Int>::from_ints({2, -100, 1, 0}, dev());
  auto l2 = CrossEntropyLossConfig().with_pad_tokens(std::vector<int64_t>{-100}).init();
  auto p2 = ce_reference({1, 1, 1, 1}, 0, 3);
  EXPECT_NEAR(scalar(l2.forward(scores(), padded)), p2.first / 3, 1e-6);
}

TEST(CrossEntropyLoss, GradientsMatchCentralDifferences) {
  auto loss = CrossEntropyLossConfig()
                  .with_weights(std::vector<double>{0.5, 2.0, 1.0, 3.0})
                  .with_smoothing(0.2)
                  .init();
  Linear l = LinearConfig(4, 4).init(dev());
  testing::expect_grads<Linear, 2>(l, scores(), [&](const Linear& m, const Tensor<2>& x) {
    return loss.forward(m.forward(x), targets());
  });
}

TEST(CrossEntropyLoss, MisuseNamesTheLoss) {
  auto loss = CrossEntropyLossConfig().init();
  testing::expect_error([&] { loss.forward(scores(), Tensor<1, Int>::zeros(Shape{3}, dev())); },
                        {"CrossEntropyLoss", "targets", "i32[3]"});
  auto weighted = CrossEntropyLossConfig().with_weights(std::vector<double>{1, 2}).init();
  testing::expect_error([&] { weighted.forward(scores(), targets()); },
                        {"CrossEntropyLoss", "2 class weights", "f32[4, 4]"});
}

double bce(double p, double t) { return -(t * std::log(p) + (1 - t) * std::log(1 - p)); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(BinaryCrossEntropyLoss, ProbabilitiesLogitsWeightsAndSmoothing) {
  std::vector<double> x = {0.8, -1.5, 2.5, 0.1, -0.3, 1.2};
  std::vector<int64_t> t = {1, 0, 1, 1, 0, 0};
  auto tt = Tensor<2, Int>::from_data(TensorData(t, Shape{2, 3}).convert(DType::I32), dev());
  auto logits = from_host<2>(x, Shape{2, 3});
  std::vector<double> w = {1.0, 2.0, 0.5};
  double plain = 0, weighted = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double ts = t[i] * 0.9 + 0.05;
    plain += bce(sigmoid(x[i]), t[i]) / 6;
    weighted += w[i % 3] * bce(sigmoid(x[i]), ts) / 6;
  }
  auto from_logits = BinaryCrossEntropyLossConfig().with_logits(true).init();
  EXPECT_NEAR(scalar(from_logits.forward(logits, tt)), plain, 1e-6);
  auto from_probs = BinaryCrossEntropyLossConfig().init();
  EXPECT_NEAR(scalar(from_probs.forward(activation::sigmoid(logits), tt)), plain, 1e-5);
  auto full = BinaryCrossEntropyLossConfig().with_logits(true).with_weights(w).with_smoothing(0.1);
  EXPECT_NEAR(scalar(full.init().forward(logits, tt)), weighted, 1e-6);
  // Saturated probabilities give PyTorch's clamped -100 log, not inf.
  auto p = from_host<1>({0.0, 1.0}, Shape{2});
  auto y = Tensor<1, Int>::from_ints({1, 0}, dev());
  EXPECT_NEAR(scalar(from_probs.forward(p, y)), 100, 1e-4);
}

TEST(Losses, RegressionLossesMatchClosedForms) {
  std::vector<double> a = {0.5, -2.0, 3.0, 0.1, -0.4, 1.7}, b = {0.0, 1.0, 0.5, 0.2, -2.4, 1.7};
  auto pa = from_host<2>(a, Shape{2, 3}), pb = from_host<2>(b, Shape{2, 3});
  double mse = 0, huber = 0, smooth = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double r = std::abs(a[i] - b[i]);
    mse += r * r / 6;
    huber += (r <= 1.5 ? 0.5 * r * r : 1.5 * (r - 0.75)) / 6;
    smooth += (r < 0.5 ? 0.5 * r * r / 0.5 : r - 0.25) / 6;
  }
  EXPECT_NEAR(scalar(MseLoss().forward(pa, pb)), mse, 1e-6);
  EXPECT_NEAR(scalar(MseLoss().forward(pa, pb, Reduction::Sum)), 6 * mse, 1e-5);
  EXPECT_NEAR(scalar(HuberLossConfig(1.5).init().forward(pa, pb)), huber, 1e-6);
  EXPECT_NEAR(scalar(SmoothL1LossConfig().with_beta(0.5).init().forward(pa, pb)), smooth, 1e-6);
  EXPECT_EQ(MseLoss().forward_no_reduction(pa, pb).shape(), (Shape{2, 3}));
  testing::expect_error(
      [&] {
        MseLoss().forward(pa, from_host<2>(a, Shape{3, 2}));
      },
      {"MseLoss", "f32[2, 3]", "f32[3, 2]"});
}

TEST(Losses, KlDivergence) {
  std::vector<double> lp = {std::log(0.2), std::log(0.5), std::log(0.3),
                            std::log(0.6), std::log(0.1), std::log(0.3)};
  std::vector<double> t = {0.1, 0.0, 0.9, 0.3, 0.3, 0.4};
  double sum = 0;
  for (size_t i = 0; i < t.size(); ++i) sum += t[i] > 0 ? t[i] * (std::log(t[i]) - lp[i]) : 0;
  auto x = from_host<2>(lp, Shape{2, 3}), y = from_host<2>(t, Shape{2, 3});
  EXPECT_NEAR(scalar(KlDivLossConfig().init().forward(x, y)), sum / 6, 1e-6);
  auto batch = KlDivLossConfig().with_reduction(Reduction::BatchMean).init();
  EXPECT_NEAR(scalar(batch.forward(x, y)), sum / 2, 1e-6);
  auto log_t = KlDivLossConfig().with_log_target(true).with_reduction(Reduction::Sum).init();
  std::vector<double> t2 = {0.1, 0.2, 0.7, 0.3, 0.3, 0.4}, lt2;
  double sum2 = 0;
  for (size_t i = 0; i < t2.size(); ++i) {
    lt2.push_back(std::log(t2[i]));
    sum2 += t2[i] * (std::log(t2[i]) - lp[i]);
  }
  EXPECT_NEAR(scalar(log_t.forward(x, from_host<2>(lt2, Shape{2, 3}))), sum2, 1e-5);
}

TEST(Losses, CosineEmbedding) {
  std::vector<double> a = {1, 0, 2, -1, 1, 1, 0.5, 0.5, 0}, b = {2, 1, 0, 1, 1, -1, -1, 0, 3};
  auto y = Tensor<1, Int>::from_ints({1, -1, -1}, dev());
  double total = 0;
  for (int r = 0; r < 3; ++r) {
    double dot = 0, na = 0, nb = 0;
    for (int c = 0; c < 3; ++c) {
      dot += a[r * 3 + c] * b[r * 3 + c];
      na += a[r * 3 + c] * a[r * 3 + c];
      nb += b[r * 3 + c] * b[r * 3 + c];
    }
    double cos = dot / std::sqrt(na * nb);
    total += r == 0 ? 1 - cos : std::max(0.0, cos - 0.1);
  }
  auto loss = CosineEmbeddingLossConfig().with_margin(0.1).init();
  EXPECT_NEAR(scalar(loss.forward(from_host<2>(a, Shape{3, 3}), from_host<2>(b, Shape{3, 3}), y)),
              total / 3, 1e-6);
}

TEST(Losses, PoissonNll) {
  std::vector<double> x = {0.5, -1.0, 2.0, 0.0}, t = {1.0, 0.0, 3.0, 2.0};
  double log_in = 0, full = 0, direct = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double l = std::exp(x[i]) - t[i] * x[i];
    log_in += l / 4;
    double stirling =
        t[i] > 1 ? t[i] * std::log(t[i]) - t[i] + 0.5 * std::log(2 * std::numbers::pi * t[i]) : 0;
    full += (l + stirling) / 4;
    double p = std::exp(x[i]);
    direct += (p - t[i] * std::log(p + 1e-8)) / 4;
  }
  auto xi = from_host<1>(x, Shape{4}), ti = from_host<1>(t, Shape{4});
  EXPECT_NEAR(scalar(PoissonNllLossConfig().init().forward(xi, ti)), log_in, 1e-6);
  EXPECT_NEAR(scalar(PoissonNllLossConfig().with_full(true).init().forward(xi, ti)), full, 1e-5);
  EXPECT_NEAR(scalar(PoissonNllLossConfig().with_log_input(false).init().forward(xi.exp(), ti)),
              direct, 1e-5);
}

// The regression losses through a Linear, in f64.
TEST(Losses, GradientsMatchCentralDifferences) {
  Linear l = LinearConfig(3, 2).init(dev());
  auto x = from_host<2>({0.5, -1, 2, 3, 0.25, -0.75}, Shape{2, 3});
  auto target = from_host<2>({0.3, -2.0, 1.0, 0.1}, Shape{2, 2}, DType::F64);
  auto check = [&](auto loss_of) { testing::expect_grads<Linear, 2>(l, x, loss_of); };
  check([&](const Linear& m, const Tensor<2>& in) {
    return MseLoss().forward(m.forward(in), target);
  });
  check([&](const Linear& m, const Tensor<2>& in) {
    return HuberLossConfig(0.5).init().forward(m.forward(in), target);
  });
  check([&](const Linear& m, const Tensor<2>& in) {
    return PoissonNllLossConfig().with_full(true).init().forward(m.forward(in), target.abs() * 2);
  });
  auto bin = Tensor<2, Int>::from_ints({{1, 0}, {0, 1}}, dev());
  check([&](const Linear& m, const Tensor<2>& in) {
    return BinaryCrossEntropyLossConfig().with_logits(true).init().forward(m.forward(in), bin);
  });
}

}  // namespace
}  // namespace ember::nn
