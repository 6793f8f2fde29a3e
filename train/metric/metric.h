#pragma once
// Metrics (Burn's Metric trait): a metric sees every step's output through a MetricInput, the
// one adaptor each output type provides, and is read back at log intervals, not per step. A
// tensor metric records its per-step statistics as lazy device ops (summed on the device), so
// reading it is the only sync it causes; a host metric (learning rate, speed, CPU, GPU) samples
// what it measures when it is read.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/tensor.h"

namespace ember::train {

// What one step's output offers the metrics (Burn's Adaptor<...Input> impls, in one struct).
// A field a metric needs but the output lacks is an ember::Error naming the metric.
struct MetricInput {
  std::optional<Tensor<1>> loss;          // [1], the step's mean loss
  std::optional<Tensor<2>> output;        // [n, classes] logits, or [n, d] predictions
  std::optional<Tensor<1, Int>> targets;  // [n] class ids
  std::optional<Tensor<2>> values;        // [n, d] regression targets
  std::optional<Tensor<1>> weights;       // [n] 1 for items counted, 0 for padding (sequences)
  int64_t batch_size = 0;                 // items in the step (tokens for sequences)
};

// Where the training stands when a metric is updated.
struct MetricMetadata {
  int64_t epoch = 1, epochs = 1;          // from 1
  int64_t iteration = 0, iterations = 0;  // steps done in this epoch, of this many
  int64_t global_step = 0;                // steps since the start of training
  double lr = 0;                          // the learning rate of the last optimizer step
};

// Which way a metric improves (early stopping and the best checkpoint use it).
enum class Direction { Lowest, Highest };

class Metric {
 public:
  virtual ~Metric() = default;
  // Unique name (Burn's: "Loss", "Accuracy", "Top-3 Accuracy"); also the log file's name.
  virtual std::string name() const = 0;
  // Records the step's statistics; a tensor metric adds lazy ops, nothing is read.
  virtual void update(const MetricInput& input, const MetricMetadata& meta) = 0;
  // The value over the updates since the last read (a sync for tensor metrics), folded into the
  // epoch's value; nullopt when nothing was updated since.
  virtual std::optional<double> read() = 0;
  // The value over the epoch so far (NaN before the first read).
  virtual double epoch_value() const = 0;
  // Starts a new epoch.
  virtual void clear() = 0;
  // What the epoch's value is computed from, as of the last read: a checkpoint taken inside an
  // epoch keeps it so that the resumed run's epoch value covers the steps before the stop too.
  // Empty for a metric with nothing to keep.
  virtual std::vector<double> epoch_state() const { return {}; }
  // Sets the epoch's state back from epoch_state(); throws ember::Error naming the metric when
  // `state` cannot be its state.
  virtual void restore_epoch_state(const std::vector<double>& state) { (void)state; }
  virtual Direction direction() const { return Direction::Lowest; }
  // Printed after the value ("%" for the rates Burn shows in percent).
  virtual std::string unit() const { return ""; }
  // Digits after the point when displayed.
  virtual int precision() const { return 4; }
};

// "0.4512" or "87.21 %" with the metric's precision; "n/a" for NaN.
std::string format_value(const Metric& metric, double value);

}  // namespace ember::train
