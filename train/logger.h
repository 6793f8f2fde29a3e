#pragma once
// Where metric values go besides the screen (Burn's MetricLogger): files in the artifact
// directory laid out as Burn's (train/epoch-N/Loss.log, valid/epoch-N/Accuracy.log, ...), and
// TensorBoard event files.
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "train/event_file.h"
#include "train/history.h"

namespace ember::train {

class MetricLogger {
 public:
  virtual ~MetricLogger() = default;
  // A read over a log interval: `iteration` steps of the epoch done, `x` the shared step axis.
  virtual void log(Split split, int64_t epoch, int64_t iteration, double x,
                   const std::string& metric, double value) = 0;
  // The value over the whole epoch.
  virtual void log_epoch(Split split, int64_t epoch, const std::string& metric, double value) = 0;
};

// <dir>/<split>/epoch-<N>/<metric>.log with one "iteration,value" line per read, and
// <dir>/<split>/epochs.csv with one "epoch,metric,value" line per epoch and metric.
class FileMetricLogger : public MetricLogger {
 public:
  explicit FileMetricLogger(std::string dir) : dir_(std::move(dir)) {}
  void log(Split split, int64_t epoch, int64_t iteration, double x, const std::string& metric,
           double value) override;
  void log_epoch(Split split, int64_t epoch, const std::string& metric, double value) override;

  // "Top-5 Accuracy" -> "Top-5 Accuracy"; '/' and control characters become '_'.
  static std::string file_name(const std::string& metric);

 private:
  std::ofstream& open(const std::string& path);

  std::string dir_;
  std::map<std::string, std::ofstream> files_;
};

// <dir>/train and <dir>/valid event files (TensorBoard shows the two runs on one chart per
// metric): each read as the metric's scalar at step x, each epoch's value as "epoch/<metric>".
class EventMetricLogger : public MetricLogger {
 public:
  explicit EventMetricLogger(const std::string& dir);
  void log(Split split, int64_t epoch, int64_t iteration, double x, const std::string& metric,
           double value) override;
  void log_epoch(Split split, int64_t epoch, const std::string& metric, double value) override;

 private:
  std::unique_ptr<EventFileWriter> writers_[2];
};

}  // namespace ember::train
