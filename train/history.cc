#include "train/history.h"

namespace ember::train {

const char* split_name(Split split) { return split == Split::Train ? "train" : "valid"; }

MetricSeries& MetricHistory::series(const Metric& metric) {
  const std::string name = metric.name();
  for (auto& s : series_) {
    if (s.name == name) return s;
  }
  MetricSeries s;
  s.name = name;
  s.unit = metric.unit();
  s.precision = metric.precision();
  s.direction = metric.direction();
  series_.push_back(std::move(s));
  return series_.back();
}

void MetricHistory::add_point(Split split, const Metric& metric, double x, double value) {
  auto& s = series(metric);
  s.points[static_cast<int>(split)].emplace_back(x, value);
  s.current[static_cast<int>(split)] = format_value(metric, value);
}

void MetricHistory::add_epoch(Split split, const Metric& metric, int64_t epoch, double value) {
  series(metric).epochs[static_cast<int>(split)].emplace_back(epoch, value);
}

const MetricSeries* MetricHistory::find(const std::string& name) const {
  for (const auto& s : series_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace ember::train
