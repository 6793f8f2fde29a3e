#include "train/metric/accuracy.h"

#include <limits>

namespace ember::train {

Tensor<1> weighted_count(const Tensor<1>& hits, const MetricInput& input) {
  if (!input.weights) {
    auto n = Tensor<1>::full(Shape{1}, hits.shape()[0], hits.device());
    return Tensor<1>::cat({hits.sum(), n}, 0);
  }
  return Tensor<1>::cat({(hits * *input.weights).sum(), input.weights->sum()}, 0);
}

namespace {
double percent(const std::vector<double>& sums) {
  if (sums[1] <= 0) return std::numeric_limits<double>::quiet_NaN();
  return 100.0 * sums[0] / sums[1];
}
}  // namespace

Tensor<1> AccuracyMetric::statistics(const MetricInput& input) const {
  const auto& output = require(input.output, *this, "output");
  const auto& targets = require(input.targets, *this, "targets");
  auto hits = output.argmax(1).squeeze<1>(1).equal(targets).float_();
  return weighted_count(hits, input);
}

double AccuracyMetric::evaluate(const std::vector<double>& sums) const { return percent(sums); }

TopKAccuracyMetric::TopKAccuracyMetric(int64_t k) : k_(k) {
  if (k < 1) throw Error("TopKAccuracyMetric: k must be >= 1, got " + std::to_string(k));
}

Tensor<1> TopKAccuracyMetric::statistics(const MetricInput& input) const {
  const auto& output = require(input.output, *this, "output");
  const auto& targets = require(input.targets, *this, "targets");
  const int64_t n = output.shape()[0], classes = output.shape()[1];
  if (k_ > classes) {
    throw Error(name() + ": k " + std::to_string(k_) + " exceeds the " + std::to_string(classes) +
                " classes of the output");
  }
  auto top = output.topk_with_indices(k_, 1).second;                  // [n, k]
  auto wanted = targets.unsqueeze_dim<2>(1).expand<2>(Shape{n, k_});  // [n, k]
  auto hits = top.equal(wanted).any_dim(1).squeeze<1>(1).float_();
  return weighted_count(hits, input);
}

double TopKAccuracyMetric::evaluate(const std::vector<double>& sums) const { return percent(sums); }

}  // namespace ember::train
