#pragma once
// Accuracy and top-k accuracy in percent (Burn's AccuracyMetric, TopKAccuracyMetric): the share
// of items whose arg-max (or one of the k largest outputs) is the target. Items of weight 0
// (sequence padding) are not counted.
#include "train/metric/sum_metric.h"

namespace ember::train {

class AccuracyMetric : public SumMetric {
 public:
  std::string name() const override { return "Accuracy"; }
  Direction direction() const override { return Direction::Highest; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 2; }

 protected:
  Tensor<1> statistics(const MetricInput& input) const override;
  double evaluate(const std::vector<double>& sums) const override;
};

class TopKAccuracyMetric : public SumMetric {
 public:
  // Throws ember::Error for k < 1.
  explicit TopKAccuracyMetric(int64_t k);
  std::string name() const override { return "Top-" + std::to_string(k_) + " Accuracy"; }
  Direction direction() const override { return Direction::Highest; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 2; }

 protected:
  Tensor<1> statistics(const MetricInput& input) const override;
  double evaluate(const std::vector<double>& sums) const override;

 private:
  int64_t k_;
};

// [sum of hit * weight, sum of weight] for hits [n] (1 or 0) and the input's weights (or ones).
Tensor<1> weighted_count(const Tensor<1>& hits, const MetricInput& input);

}  // namespace ember::train
