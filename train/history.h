#pragma once
// What the Learner has measured so far, for the dashboard, the summary and the report: each
// metric's interval reads as (x, value) points, x in training steps (validation reads are placed
// along the epoch they belong to, so both splits share one axis), and its value per epoch.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "train/metric/metric.h"

namespace ember::train {

enum class Split { Train, Valid };
const char* split_name(Split split);  // "train", "valid"

struct MetricSeries {
  std::string name, unit;
  int precision = 4;
  Direction direction = Direction::Lowest;
  std::vector<std::pair<double, double>> points[2];   // by Split
  std::vector<std::pair<int64_t, double>> epochs[2];  // (epoch, value) by Split
  std::string current[2];                             // the last read, formatted
};

class MetricHistory {
 public:
  // The series of `metric` (created with its name, unit and direction on first use).
  MetricSeries& series(const Metric& metric);
  void add_point(Split split, const Metric& metric, double x, double value);
  void add_epoch(Split split, const Metric& metric, int64_t epoch, double value);
  // In the order metrics were first seen.
  const std::vector<MetricSeries>& all() const { return series_; }
  const MetricSeries* find(const std::string& name) const;

 private:
  std::vector<MetricSeries> series_;
};

}  // namespace ember::train
