#include "train/early_stopping.h"

#include <cmath>

#include "ir/error.h"

namespace ember::train {

int64_t best_epoch(const MetricHistory& history, const std::string& metric, Split split,
                   Direction direction, double min_delta) {
  const MetricSeries* s = history.find(metric);
  if (!s) return 0;
  int64_t best = 0;
  double best_value = 0;
  for (const auto& [epoch, value] : s->epochs[static_cast<int>(split)]) {
    if (std::isnan(value)) continue;
    const bool better = direction == Direction::Lowest ? value < best_value - min_delta
                                                       : value > best_value + min_delta;
    if (best == 0 || better) best = epoch, best_value = value;
  }
  return best;
}

MetricEarlyStoppingStrategy::MetricEarlyStoppingStrategy(std::string metric, Split split,
                                                         Direction direction, int64_t patience,
                                                         double min_delta)
    : metric_(std::move(metric)),
      split_(split),
      direction_(direction),
      patience_(patience),
      min_delta_(min_delta) {
  if (patience < 1) {
    throw Error("MetricEarlyStoppingStrategy: patience must be >= 1, got " +
                std::to_string(patience));
  }
  if (!(min_delta >= 0)) throw Error("MetricEarlyStoppingStrategy: min_delta must be >= 0");
}

bool MetricEarlyStoppingStrategy::should_stop(int64_t epoch, const MetricHistory& history) {
  const int64_t best = best_epoch(history, metric_, split_, direction_, min_delta_);
  if (best == 0 || epoch - best < patience_) return false;
  reason_ = "early stopping: " + std::string(split_name(split_)) + " " + metric_ +
            " has not improved since epoch " + std::to_string(best) + " (patience " +
            std::to_string(patience_) + ")";
  return true;
}

}  // namespace ember::train
