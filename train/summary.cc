#include "train/summary.h"

#include <cmath>
#include <cstdio>

#include "train/renderer.h"

namespace ember::train {

std::vector<SummaryRow> summary_rows(const MetricHistory& history) {
  std::vector<SummaryRow> rows;
  for (const auto& s : history.all()) {
    for (int split = 0; split < 2; ++split) {
      SummaryRow row{s.name, split_name(static_cast<Split>(split)), INFINITY, -INFINITY, 0, 0};
      for (const auto& [epoch, value] : s.epochs[split]) {
        if (std::isnan(value)) continue;
        if (value < row.min) row.min = value, row.min_epoch = epoch;
        if (value > row.max) row.max = value, row.max_epoch = epoch;
      }
      if (row.min_epoch > 0) rows.push_back(row);
    }
  }
  return rows;
}

std::string format_summary(const MetricHistory& history, int64_t epochs, double seconds) {
  std::string out = "Learner summary: " + std::to_string(epochs) + " epochs in " +
                    format_duration(seconds) + "\n";
  char line[256];
  std::snprintf(line, sizeof line, "| %-24s | %-5s | %12s | %5s | %12s | %5s |\n", "Metric",
                "Split", "Min.", "Epoch", "Max.", "Epoch");
  out += line;
  out += "|" + std::string(26, '-') + "|" + std::string(7, '-') + "|" + std::string(14, '-') + "|" +
         std::string(7, '-') + "|" + std::string(14, '-') + "|" + std::string(7, '-') + "|\n";
  for (const auto& r : summary_rows(history)) {
    std::snprintf(line, sizeof line, "| %-24s | %-5s | %12.4f | %5lld | %12.4f | %5lld |\n",
                  r.metric.c_str(), r.split.c_str(), r.min, static_cast<long long>(r.min_epoch),
                  r.max, static_cast<long long>(r.max_epoch));
    out += line;
  }
  return out;
}

}  // namespace ember::train
