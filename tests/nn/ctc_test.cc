// CTC loss against a brute-force sum over every alignment of tiny inputs, reductions, an
// impossible target, gradients in f64.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "frontend/activation.h"
#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

constexpr int64_t kT = 4, kN = 3, kC = 3;

// Log-probabilities [T, N, C] from fixed scores.
Tensor<3> log_probs(DType dtype = DType::F32) {
  std::vector<double> s;
  for (int64_t i = 0; i < kT * kN * kC; ++i) s.push_back(std::sin(1.7 * i) * 1.5);
  return activation::log_softmax(from_host<3>(s, Shape{kT, kN, kC}, dtype), 2);
}

// -log of the summed probability of every path over `len` frames that collapses (repeats
// merged, then blanks removed) to `target`.
double brute_force(const std::vector<double>& lp, int64_t b, int64_t len,
                   const std::vector<int64_t>& target, int64_t blank) {
  double total = 0;
  int64_t paths = 1;
  for (int64_t t = 0; t < len; ++t) paths *= kC;
  for (int64_t code = 0; code < paths; ++code) {
    std::vector<int64_t> path;
    double logp = 0;
    for (int64_t t = 0, c = code; t < len; ++t, c /= kC) {
      path.push_back(c % kC);
      logp += lp[(t * kN + b) * kC + c % kC];
    }
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < len; ++t) {
      if (path[t] != blank && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    }
    if (collapsed == target) total += std::exp(logp);
  }
  return -std::log(total);
}

TEST(CtcLoss, MatchesTheSumOverAlignments) {
  auto lp = log_probs();
  auto host_lp = host(lp);
  // Targets padded with 9 (never read); a repeated label needs a blank between its copies.
  auto targets = Tensor<2, Int>::from_ints({{1, 1}, {2, 9}, {1, 2}}, dev());
  std::vector<int64_t> in_len = {4, 3, 4}, tgt_len = {2, 1, 2};
  std::vector<std::vector<int64_t>> t = {{1, 1}, {2}, {1, 2}};
  auto per_sample = host(CtcLossConfig().init().forward_no_reduction(lp, targets, in_len, tgt_len));
  double mean = 0;
  for (int64_t b = 0; b < kN; ++b) {
    double want = brute_force(host_lp, b, in_len[b], t[b], 0);
    EXPECT_NEAR(per_sample[b], want, 1e-4) << "sample " << b;
    mean += want / tgt_len[b] / kN;
  }
  auto loss = CtcLossConfig().init().forward(lp, targets, in_len, tgt_len);
  EXPECT_NEAR(loss.into_scalar<double>(), mean, 1e-4);
  auto sum = CtcLossConfig().with_reduction(Reduction::Sum).init();
  EXPECT_NEAR(sum.forward(lp, targets, in_len, tgt_len).into_scalar<double>(),
              per_sample[0] + per_sample[1] + per_sample[2], 1e-4);
}

TEST(CtcLoss, OtherBlankAndEmptyTarget) {
  auto lp = log_probs();
  auto targets = Tensor<2, Int>::from_ints({{0, 1}, {1, 1}, {0, 0}}, dev());
  std::vector<int64_t> in_len = {4, 4, 2}, tgt_len = {2, 1, 0};
  auto got =
      host(CtcLossConfig().with_blank(2).init().forward_no_reduction(lp, targets, in_len, tgt_len));
  auto host_lp = host(lp);
  EXPECT_NEAR(got[0], brute_force(host_lp, 0, 4, {0, 1}, 2), 1e-4);
  EXPECT_NEAR(got[1], brute_force(host_lp, 1, 4, {1}, 2), 1e-4);
  EXPECT_NEAR(got[2], brute_force(host_lp, 2, 2, {}, 2), 1e-4);
}

TEST(CtcLoss, ImpossibleTargetIsInfiniteOrZero) {
  auto lp = log_probs();
  // [1, 1] needs three frames (1, blank, 1); sample 0 has two.
  auto targets = Tensor<2, Int>::from_ints({{1, 1}, {1, 2}, {2, 1}}, dev());
  std::vector<int64_t> in_len = {2, 4, 4}, tgt_len = {2, 2, 2};
  auto got = host(CtcLossConfig().init().forward_no_reduction(lp, targets, in_len, tgt_len));
  EXPECT_EQ(got[0], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isfinite(got[1]));
  auto zero = CtcLossConfig().with_zero_infinity(true).init();
  EXPECT_EQ(host(zero.forward_no_reduction(lp, targets, in_len, tgt_len))[0], 0.0);
}

TEST(CtcLoss, GradientsMatchCentralDifferences) {
  Linear l = LinearConfig(kC, kC).init(dev());
  std::vector<double> s;
  for (int64_t i = 0; i < kT * kN * kC; ++i) s.push_back(std::cos(0.9 * i));
  auto x = from_host<3>(s, Shape{kT, kN, kC});
  auto targets = Tensor<2, Int>::from_ints({{1, 1}, {2, 9}, {1, 2}}, dev());
  auto loss = CtcLossConfig().init();
  testing::expect_grads<Linear, 3>(l, x, [&](const Linear& m, const Tensor<3>& in) {
    return loss.forward(activation::log_softmax(m.forward(in), 2), targets, {4, 3, 4}, {2, 1, 2});
  });
}

TEST(CtcLoss, MisuseNamesTheLoss) {
  auto lp = log_probs();
  auto targets = Tensor<2, Int>::from_ints({{1, 1}, {2, 9}, {1, 2}}, dev());
  testing::expect_error(
      [&] {
        CtcLossConfig().init().forward(lp, targets, {4, 4}, {2, 1, 2});
      },
      {"CtcLoss", "one input and one target length"});
  testing::expect_error(
      [&] {
        CtcLossConfig().init().forward(lp, targets, {5, 4, 4}, {2, 1, 2});
      },
      {"CtcLoss", "sample 0", "f32[4, 3, 3]"});
}

}  // namespace
}  // namespace ember::nn
