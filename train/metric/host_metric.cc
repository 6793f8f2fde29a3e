#include "train/metric/host_metric.h"

#include <limits>

#include "ir/error.h"

namespace ember::train {

void HostMetric::update(const MetricInput&, const MetricMetadata& meta) {
  meta_ = meta;
  ++updates_;
}

std::optional<double> HostMetric::read() {
  if (updates_ == 0) return std::nullopt;
  std::optional<double> value = sample();
  updates_ = 0;
  if (!value) return std::nullopt;
  sum_ += *value;
  ++reads_;
  return value;
}

double HostMetric::epoch_value() const {
  if (reads_ == 0) return std::numeric_limits<double>::quiet_NaN();
  return sum_ / static_cast<double>(reads_);
}

void HostMetric::clear() {
  updates_ = 0;
  sum_ = 0;
  reads_ = 0;
}

// The mean of the epoch's reads: their sum and count.
std::vector<double> HostMetric::epoch_state() const { return {sum_, static_cast<double>(reads_)}; }

void HostMetric::restore_epoch_state(const std::vector<double>& state) {
  if (state.size() != 2 || !(state[1] >= 0 && state[1] < 9.0e18))
    throw Error(name() + ": a saved epoch state must be a sum and a count of reads");
  updates_ = 0;
  sum_ = state[0];
  reads_ = static_cast<int64_t>(state[1]);
}

std::optional<double> LearningRateMetric::sample() { return meta().lr; }

IterationSpeedMetric::IterationSpeedMetric() : last_(std::chrono::steady_clock::now()) {}

void IterationSpeedMetric::clear() {
  HostMetric::clear();
  last_ = std::chrono::steady_clock::now();
}

std::optional<double> IterationSpeedMetric::sample() {
  auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  if (seconds <= 0) return std::nullopt;
  return static_cast<double>(updates_since_read()) / seconds;
}

}  // namespace ember::train
