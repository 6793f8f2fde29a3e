#pragma once
// The summary printed at the end of fit() and put in the report (Burn's LearnerSummary): for
// each metric and split, the best and worst epoch value and their epochs, the epochs run and the
// training time.
#include <string>

#include "train/history.h"

namespace ember::train {

struct SummaryRow {
  std::string metric, split;
  double min = 0, max = 0;
  int64_t min_epoch = 0, max_epoch = 0;
};

std::vector<SummaryRow> summary_rows(const MetricHistory& history);

// A fixed-width text table.
std::string format_summary(const MetricHistory& history, int64_t epochs, double seconds);

}  // namespace ember::train
