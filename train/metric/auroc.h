#pragma once
// The area under the ROC curve in percent for binary classification (Burn's AurocMetric): the
// probability that a random positive item scores above a random negative one, ties counting one
// half (the Mann-Whitney statistic, from average ranks). The score is the softmax probability of
// class 1 for a two-column output, the output itself for one column. AUROC does not decompose
// into sums, so the device keeps the step's scores and labels and a read takes them to the host
// together. With no positive or no negative item the area is undefined: NaN ("n/a").
#include <optional>
#include <vector>

#include "train/metric/metric.h"

namespace ember::train {

class AurocMetric : public Metric {
 public:
  std::string name() const override { return "AUROC"; }
  void update(const MetricInput& input, const MetricMetadata& meta) override;
  std::optional<double> read() override;
  double epoch_value() const override;
  void clear() override;
  std::vector<double> epoch_state() const override;
  void restore_epoch_state(const std::vector<double>& state) override;
  Direction direction() const override { return Direction::Highest; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 2; }

 private:
  std::vector<Tensor<2>> pending_;  // [n, 2]: score, label
  std::vector<double> scores_, labels_;
};

// The area in [0, 1] for scores and labels (1 positive, 0 negative); NaN without both classes.
double auroc(const std::vector<double>& scores, const std::vector<double>& labels);

}  // namespace ember::train
