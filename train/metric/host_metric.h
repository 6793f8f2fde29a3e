#pragma once
// Metrics measured on the host when they are read (no tensors): the learning rate, iteration
// speed, CPU and memory use (from /proc), GPU memory and utilization (NVML). The epoch's value is
// the mean of its reads.
#include <chrono>
#include <optional>

#include "train/metric/metric.h"

namespace ember::train {

class HostMetric : public Metric {
 public:
  void update(const MetricInput&, const MetricMetadata& meta) override;
  std::optional<double> read() override;
  double epoch_value() const override;
  void clear() override;
  std::vector<double> epoch_state() const override;
  void restore_epoch_state(const std::vector<double>& state) override;

 protected:
  // The value now; nullopt when nothing was measured since the last read.
  virtual std::optional<double> sample() = 0;
  // The last update's metadata.
  const MetricMetadata& meta() const { return meta_; }
  int64_t updates_since_read() const { return updates_; }

 private:
  MetricMetadata meta_;
  int64_t updates_ = 0;
  double sum_ = 0;
  int64_t reads_ = 0;
};

// The learning rate of the last optimizer step (Burn's LearningRateMetric).
class LearningRateMetric : public HostMetric {
 public:
  std::string name() const override { return "Learning Rate"; }
  int precision() const override { return 6; }

 protected:
  std::optional<double> sample() override;
};

// Iterations per second since the last read (Burn's IterationSpeedMetric).
class IterationSpeedMetric : public HostMetric {
 public:
  IterationSpeedMetric();
  std::string name() const override { return "Iteration Speed"; }
  Direction direction() const override { return Direction::Highest; }
  std::string unit() const override { return "iter/s"; }
  int precision() const override { return 2; }
  // A new epoch starts the clock again (validation is not counted as training time).
  void clear() override;

 protected:
  std::optional<double> sample() override;

 private:
  std::chrono::steady_clock::time_point last_;
};

}  // namespace ember::train
