#pragma once
// The loss used for the backward pass (Burn's LossMetric), averaged over items: each step's mean
// loss weighs by its batch size, so an epoch's value is the mean over every item.
#include "train/metric/sum_metric.h"

namespace ember::train {

class LossMetric : public SumMetric {
 public:
  std::string name() const override { return "Loss"; }

 protected:
  Tensor<1> statistics(const MetricInput& input) const override;
  double evaluate(const std::vector<double>& sums) const override;
};

}  // namespace ember::train
