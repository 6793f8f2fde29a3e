#include "nn/loss/ctc.h"

#include <algorithm>
#include <limits>
#include <string>

#include "nn/checks.h"

namespace ember::nn {

namespace {

constexpr const char* kName = "CtcLoss";
// Stands for log(0): finite, so max-shifted log-sum-exp never computes inf - inf.
constexpr double kImpossible = -1e30;

// What the recursion needs, built on the host: the blank-interleaved labels of each sample
// [N, L] (L = 2 S + 1), where a skip from s - 2 is allowed, and which frames are active.
struct Lattice {
  int64_t n = 0, len = 0;
  std::vector<int32_t> labels;  // [N, L]
  std::vector<bool> skip;       // [N, L]
};

Lattice build_lattice(const std::vector<int64_t>& targets, int64_t n, int64_t s, int64_t blank,
                      const std::vector<int64_t>& target_lengths) {
  Lattice lat{n, 2 * s + 1, {}, {}};
  lat.labels.assign(n * lat.len, static_cast<int32_t>(blank));
  lat.skip.assign(n * lat.len, false);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < target_lengths[b]; ++k) {
      lat.labels[b * lat.len + 2 * k + 1] = static_cast<int32_t>(targets[b * s + k]);
    }
    for (int64_t i = 2; i < lat.len; ++i) {
      int32_t l = lat.labels[b * lat.len + i];
      lat.skip[b * lat.len + i] = l != blank && l != lat.labels[b * lat.len + i - 2];
    }
  }
  return lat;
}

void check_inputs(const Tensor<3>& lp, const Tensor<2, Int>& targets,
                  const std::vector<int64_t>& input_lengths,
                  const std::vector<int64_t>& target_lengths, int64_t blank) {
  const int64_t t = lp.shape()[0], n = lp.shape()[1], c = lp.shape()[2];
  const std::string shapes =
      lp.raw().type().to_string() + " and targets " + targets.raw().type().to_string();
  if (targets.shape()[0] != n) detail::throw_layer_error(kName, "batch sizes differ: " + shapes);
  if (static_cast<int64_t>(input_lengths.size()) != n ||
      static_cast<int64_t>(target_lengths.size()) != n) {
    detail::throw_layer_error(kName, "needs one input and one target length per sample: " + shapes);
  }
  if (blank < 0 || blank >= c) detail::throw_layer_error(kName, "blank outside the classes");
  for (int64_t b = 0; b < n; ++b) {
    if (input_lengths[b] < 1 || input_lengths[b] > t || target_lengths[b] < 0 ||
        target_lengths[b] > targets.shape()[1]) {
      detail::throw_layer_error(
          kName, "sample " + std::to_string(b) + ": lengths " + std::to_string(input_lengths[b]) +
                     " and " + std::to_string(target_lengths[b]) + " do not fit " + shapes);
    }
  }
}

// log(exp(a) + exp(b) + exp(c)), shifted by the maximum.
Tensor<2> log_add3(const Tensor<2>& a, const Tensor<2>& b, const Tensor<2>& c) {
  auto m = a.max_pair(b).max_pair(c).detach();
  return m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).log();
}

// x shifted right by k along dim 1, filled with kImpossible.
Tensor<2> shift(const Tensor<2>& x, int64_t k) { return x.pad({{k, -k}}, kImpossible); }

// Host masks of [n, len] values: f(sample, position).
template <class F>
Tensor<2, Bool> host_mask(int64_t n, int64_t len, const Device& dev, F f) {
  std::vector<bool> m(n * len);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < len; ++i) m[b * len + i] = f(b, i);
  return Tensor<2, Bool>::from_data(TensorData(m, Shape{n, len}), dev);
}

// log p(target) from the last alphas: paths end in the last label or the trailing blank.
Tensor<2> end_log_prob(const Tensor<2>& alpha, const std::vector<int64_t>& target_lengths) {
  const int64_t n = alpha.shape()[0];
  const Device dev = alpha.device();
  std::vector<int32_t> last(2 * n);
  for (int64_t b = 0; b < n; ++b) {
    last[2 * b] = static_cast<int32_t>(2 * target_lengths[b]);
    last[2 * b + 1] = static_cast<int32_t>(std::max<int64_t>(2 * target_lengths[b] - 1, 0));
  }
  auto ends = alpha.gather(1, Tensor<2, Int>::from_data(TensorData(last, Shape{n, 2}), dev));
  // An empty target ends in its only blank.
  ends = ends.mask_fill(
      host_mask(n, 2, dev, [&](int64_t b, int64_t i) { return i == 1 && target_lengths[b] == 0; }),
      kImpossible);
  auto blank_end = ends.slice_dim(1, Range(0, 1));
  return log_add3(blank_end, ends.slice_dim(1, Range(1, 2)), blank_end.full_like(kImpossible));
}

}  // namespace

Tensor<1> CtcLoss::forward_no_reduction(const Tensor<3>& log_probs, const Tensor<2, Int>& targets,
                                        const std::vector<int64_t>& input_lengths,
                                        const std::vector<int64_t>& target_lengths) const {
  check_inputs(log_probs, targets, input_lengths, target_lengths, blank);
  const int64_t steps = log_probs.shape()[0], n = log_probs.shape()[1];
  const Device dev = log_probs.device();
  Lattice lat = build_lattice(targets.to_data().to_vec<int64_t>(), n, targets.shape()[1], blank,
                              target_lengths);
  auto labels = Tensor<2, Int>::from_data(TensorData(lat.labels, Shape{n, lat.len}), dev);
  auto no_skip =
      Tensor<2, Bool>::from_data(TensorData(lat.skip, Shape{n, lat.len}), dev).bool_not();
  auto emit = [&](int64_t t) {
    return log_probs.slice_dim(0, Range(t, t + 1)).squeeze<2>(0).gather(1, labels);
  };
  // At t = 0 a path starts with the first blank or the first label.
  Tensor<2> alpha = emit(0).mask_fill(
      host_mask(n, lat.len, dev, [](int64_t, int64_t i) { return i > 1; }), kImpossible);
  for (int64_t t = 1; t < steps; ++t) {
    auto next = log_add3(alpha, shift(alpha, 1), shift(alpha, 2).mask_fill(no_skip, kImpossible));
    // A sample whose input has ended keeps its alphas.
    auto active =
        host_mask(n, lat.len, dev, [&](int64_t b, int64_t) { return t < input_lengths[b]; });
    alpha = alpha.mask_where(active, next + emit(t));
  }
  auto out = (-end_log_prob(alpha, target_lengths)).reshape<1>(Shape{n});
  // No alignment at all (a target too long for its input) sums to about 1e30: infinite, as
  // PyTorch, or 0 with zero_infinity.
  return out.mask_fill(out.greater_elem(1e29),
                       zero_infinity ? 0.0 : std::numeric_limits<double>::infinity());
}

Tensor<1> CtcLoss::forward(const Tensor<3>& log_probs, const Tensor<2, Int>& targets,
                           const std::vector<int64_t>& input_lengths,
                           const std::vector<int64_t>& target_lengths) const {
  Tensor<1> per_sample = forward_no_reduction(log_probs, targets, input_lengths, target_lengths);
  if (reduction != Reduction::Mean) return reduce_loss(per_sample, reduction);
  std::vector<double> scale;
  for (int64_t l : target_lengths)
    scale.push_back(1.0 / static_cast<double>(std::max<int64_t>(l, 1)));
  auto s = Tensor<1>::from_data(TensorData(scale), log_probs.device()).cast(log_probs.dtype());
  return (per_sample * s).mean();
}

CtcLoss CtcLossConfig::init() const {
  if (blank < 0) detail::throw_layer_error("CtcLossConfig", "blank must not be negative");
  CtcLoss l;
  l.blank = blank;
  l.zero_infinity = zero_infinity;
  l.reduction = reduction;
  return l;
}

}  // namespace ember::nn
