#pragma once
// A tensor metric whose value is a function of sums over the steps (correct predictions and
// items, loss times items, confusion counts): each update adds the step's statistics to a lazy
// sum on the device; a read takes the sum to the host once, adds it to the epoch's sums, and
// evaluates both.
#include <optional>
#include <vector>

#include "train/metric/metric.h"

namespace ember::train {

class SumMetric : public Metric {
 public:
  void update(const MetricInput& input, const MetricMetadata& meta) override;
  std::optional<double> read() override;
  double epoch_value() const override;
  void clear() override;
  std::vector<double> epoch_state() const override;
  void restore_epoch_state(const std::vector<double>& state) override;

 protected:
  // The step's statistics, a fixed-length vector.
  virtual Tensor<1> statistics(const MetricInput& input) const = 0;
  // The metric from summed statistics (NaN when undefined, e.g. no items).
  virtual double evaluate(const std::vector<double>& sums) const = 0;

 private:
  std::optional<Tensor<1>> pending_;  // lazy sum since the last read
  std::vector<double> epoch_;
};

// Throws ember::Error unless the input has `field` (named in the message with the metric).
template <class T>
const T& require(const std::optional<T>& field, const Metric& metric, const char* name) {
  if (!field) throw Error(metric.name() + ": the step's output has no " + name);
  return *field;
}

}  // namespace ember::train
