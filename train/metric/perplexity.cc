#include "train/metric/perplexity.h"

#include <cmath>
#include <limits>

#include "frontend/activation.h"
#include "train/metric/accuracy.h"

namespace ember::train {

Tensor<1> PerplexityMetric::statistics(const MetricInput& input) const {
  const auto& output = require(input.output, *this, "output");
  const auto& targets = require(input.targets, *this, "targets");
  auto log_p = activation::log_softmax(output, 1).gather(1, targets.unsqueeze_dim<2>(1));  // [n, 1]
  return weighted_count(-log_p.squeeze<1>(1), input);
}

double PerplexityMetric::evaluate(const std::vector<double>& sums) const {
  if (sums[1] <= 0) return std::numeric_limits<double>::quiet_NaN();
  return std::exp(sums[0] / sums[1]);
}

}  // namespace ember::train
