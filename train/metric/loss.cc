#include "train/metric/loss.h"

#include <limits>

namespace ember::train {

Tensor<1> LossMetric::statistics(const MetricInput& input) const {
  const Tensor<1>& loss = require(input.loss, *this, "loss");
  const double n = static_cast<double>(input.batch_size);
  auto count = Tensor<1>::full(Shape{1}, n, loss.device());
  return Tensor<1>::cat({loss.mean() * n, count}, 0);
}

double LossMetric::evaluate(const std::vector<double>& sums) const {
  if (sums[1] <= 0) return std::numeric_limits<double>::quiet_NaN();
  return sums[0] / sums[1];
}

}  // namespace ember::train
