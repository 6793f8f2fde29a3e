#include "train/metric/auroc.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "frontend/activation.h"
#include "frontend/autodiff.h"
#include "train/metric/sum_metric.h"

namespace ember::train {

double auroc(const std::vector<double>& scores, const std::vector<double>& labels) {
  const size_t n = scores.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });
  double positive_rank_sum = 0, positives = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;  // [i, j): a run of tied scores shares the mean of its ranks (1-based)
    while (j < n && scores[order[j]] == scores[order[i]]) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (labels[order[k]] > 0.5) positive_rank_sum += rank, positives += 1;
    }
    i = j;
  }
  const double negatives = static_cast<double>(n) - positives;
  if (positives == 0 || negatives == 0) return std::numeric_limits<double>::quiet_NaN();
  return (positive_rank_sum - positives * (positives + 1) / 2) / (positives * negatives);
}

void AurocMetric::update(const MetricInput& input, const MetricMetadata&) {
  NoGradGuard no_grad;
  const auto& output = require(input.output, *this, "output");
  const auto& targets = require(input.targets, *this, "targets");
  const int64_t columns = output.shape()[1];
  if (columns != 1 && columns != 2) {
    throw Error("AUROC: binary classification needs an output of 1 or 2 columns, got " +
                std::to_string(columns));
  }
  auto score = columns == 2 ? activation::softmax(output, 1).slice_dim(1, {1, 2}) : output;
  auto label = targets.float_().unsqueeze_dim<2>(1);
  pending_.push_back(Tensor<2>::cat({score.detach(), label}, 1));
}

std::optional<double> AurocMetric::read() {
  if (pending_.empty()) return std::nullopt;
  std::vector<double> pairs = Tensor<2>::cat(pending_, 0).to_data().to_vec<double>();
  pending_.clear();
  std::vector<double> scores, labels;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    scores.push_back(pairs[i]);
    labels.push_back(pairs[i + 1]);
  }
  scores_.insert(scores_.end(), scores.begin(), scores.end());
  labels_.insert(labels_.end(), labels.begin(), labels.end());
  return 100.0 * auroc(scores, labels);
}

double AurocMetric::epoch_value() const {
  if (scores_.empty()) return std::numeric_limits<double>::quiet_NaN();
  return 100.0 * auroc(scores_, labels_);
}

void AurocMetric::clear() {
  pending_.clear();
  scores_.clear();
  labels_.clear();
}

// AUROC needs every item's score: the state is the scores followed by the labels.
std::vector<double> AurocMetric::epoch_state() const {
  std::vector<double> state(scores_);
  state.insert(state.end(), labels_.begin(), labels_.end());
  return state;
}

void AurocMetric::restore_epoch_state(const std::vector<double>& state) {
  if (state.size() % 2 != 0)
    throw Error(name() + ": a saved epoch state must hold as many labels as scores, got " +
                std::to_string(state.size()) + " values");
  const auto half = state.begin() + static_cast<std::ptrdiff_t>(state.size() / 2);
  pending_.clear();
  scores_.assign(state.begin(), half);
  labels_.assign(half, state.end());
}

}  // namespace ember::train
