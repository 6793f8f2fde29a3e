#pragma once
// The metrics of one split: updated together each step, read together at each log interval
// and at the epoch's end, their values passed on to the history, the loggers and the screen.
#include <memory>
#include <vector>

#include "train/history.h"
#include "train/logger.h"
#include "train/metric/metric.h"

namespace ember::train {

class MetricSet {
 public:
  explicit MetricSet(Split split) : split_(split) {}
  void add(std::unique_ptr<Metric> metric) { metrics_.push_back(std::move(metric)); }
  bool empty() const { return metrics_.empty(); }
  const std::vector<std::unique_ptr<Metric>>& metrics() const { return metrics_; }

  void update(const MetricInput& input, const MetricMetadata& meta);
  // Reads every metric (one sync per tensor metric) and logs the values at x.
  void read(int64_t epoch, int64_t iteration, double x, MetricHistory& history,
            const std::vector<MetricLogger*>& loggers);
  // The epoch's values into the history and the loggers; the metrics start a new epoch.
  void end_epoch(int64_t epoch, MetricHistory& history, const std::vector<MetricLogger*>& loggers);

 private:
  Split split_;
  std::vector<std::unique_ptr<Metric>> metrics_;
};

}  // namespace ember::train
