#pragma once
// Early stopping on a metric (Burn's MetricEarlyStoppingStrategy with the NoImprovementSince
// condition): training stops once the metric's epoch value on a split has not improved for
// `patience` epochs. An improvement beats the best so far by more than min_delta in the
// metric's direction.
#include <cstdint>
#include <string>

#include "train/history.h"

namespace ember::train {

class EarlyStoppingStrategy {
 public:
  virtual ~EarlyStoppingStrategy() = default;
  // Called after each epoch's validation with everything measured so far.
  virtual bool should_stop(int64_t epoch, const MetricHistory& history) = 0;
  // Why it stopped, for the person.
  virtual std::string reason() const = 0;
};

class MetricEarlyStoppingStrategy : public EarlyStoppingStrategy {
 public:
  // Throws ember::Error for patience < 1 or a negative min_delta.
  MetricEarlyStoppingStrategy(std::string metric, Split split, Direction direction,
                              int64_t patience, double min_delta = 0);
  bool should_stop(int64_t epoch, const MetricHistory& history) override;
  std::string reason() const override { return reason_; }

 private:
  std::string metric_;
  Split split_;
  Direction direction_;
  int64_t patience_;
  double min_delta_;
  std::string reason_;
};

// The epoch of the best value of `metric` on `split` (by `direction`; the first of equals), or 0
// when it has no epoch value.
int64_t best_epoch(const MetricHistory& history, const std::string& metric, Split split,
                   Direction direction, double min_delta = 0);

}  // namespace ember::train
