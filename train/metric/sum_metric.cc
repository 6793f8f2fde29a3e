#include "train/metric/sum_metric.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "frontend/autodiff.h"

namespace ember::train {

void SumMetric::update(const MetricInput& input, const MetricMetadata&) {
  NoGradGuard no_grad;
  Tensor<1> stats = statistics(input).detach();
  pending_ = pending_ ? *pending_ + stats : stats;
}

std::optional<double> SumMetric::read() {
  if (!pending_) return std::nullopt;
  std::vector<double> sums = pending_->to_data().convert(DType::F64).to_vec<double>();
  pending_.reset();
  if (epoch_.empty()) epoch_.assign(sums.size(), 0.0);
  for (size_t i = 0; i < sums.size(); ++i) epoch_[i] += sums[i];
  return evaluate(sums);
}

double SumMetric::epoch_value() const {
  if (epoch_.empty()) return std::numeric_limits<double>::quiet_NaN();
  return evaluate(epoch_);
}

void SumMetric::clear() {
  pending_.reset();
  epoch_.clear();
}

std::vector<double> SumMetric::epoch_state() const { return epoch_; }

void SumMetric::restore_epoch_state(const std::vector<double>& state) {
  // The statistics' length is fixed per metric but only known from a first step; a checkpoint
  // is taken after at least one read, so an empty state is only one from an empty epoch.
  if (!epoch_.empty() && state.size() != epoch_.size())
    throw Error(name() + ": a saved epoch state of " + std::to_string(state.size()) +
                " sums, this metric keeps " + std::to_string(epoch_.size()));
  pending_.reset();
  epoch_ = state;
}

std::string format_value(const Metric& metric, double value) {
  if (std::isnan(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", metric.precision(), value);
  std::string unit = metric.unit();
  return unit.empty() ? buf : std::string(buf) + " " + unit;
}

}  // namespace ember::train
