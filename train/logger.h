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
// <dir>/<split>/epochs.csv with one "epoch,metric,value" line per epoch and metric. The reads
// are appended as they come (a crash loses at most the line being written); epochs.csv is
// rewritten whole under a temporary name and renamed at each epoch, so it is never half
// written. A resumed run first drops what the run it resumes logged after its checkpoint, so
// that no line is logged twice.
class FileMetricLogger : public MetricLogger {
 public:
  explicit FileMetricLogger(std::string dir) : dir_(std::move(dir)) {}
  void log(Split split, int64_t epoch, int64_t iteration, double x, const std::string& metric,
           double value) override;
  void log_epoch(Split split, int64_t epoch, const std::string& metric, double value) override;
  // Resuming from the checkpoint of `epoch` (`iteration` steps into it; 0: the whole epoch):
  // what earlier runs logged after that point goes when its file is next written.
  void resume_after(int64_t epoch, int64_t iteration);

  // "Top-5 Accuracy" -> "Top-5 Accuracy"; '/' and control characters become '_'.
  static std::string file_name(const std::string& metric);

 private:
  std::ofstream& open(const std::string& path, int64_t epoch);
  // Rows of a split's epochs.csv: (epoch, metric) -> the value's text.
  using EpochRows = std::map<std::pair<int64_t, std::string>, std::string>;
  EpochRows& epoch_rows(Split split);

  std::string dir_;
  std::map<std::string, std::ofstream> files_;
  std::map<int, EpochRows> epochs_;  // by split
  // The resume point: reads after (epoch, iteration) and epoch values of later epochs are
  // dropped from what earlier runs wrote.
  int64_t resume_epoch_ = 0, resume_iteration_ = 0;
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
