#pragma once
// Perplexity (Burn's PerplexityMetric): exp of the mean negative log-likelihood of the targets
// under the output's softmax, over the items of non-zero weight (padding excluded). Computed from
// the logits, not the loss, so label smoothing or a weighted loss does not change it.
#include "train/metric/sum_metric.h"

namespace ember::train {

class PerplexityMetric : public SumMetric {
 public:
  std::string name() const override { return "Perplexity"; }
  int precision() const override { return 3; }

 protected:
  Tensor<1> statistics(const MetricInput& input) const override;
  double evaluate(const std::vector<double>& sums) const override;
};

}  // namespace ember::train
