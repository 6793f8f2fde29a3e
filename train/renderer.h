#pragma once
// How a run shows itself to a person (Burn's MetricsRenderer): the terminal dashboard when
// stdout is a terminal, plain lines otherwise. The Learner calls progress() every step (cheap:
// no metric is read) and render() after each metric read and at each epoch's end.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "train/history.h"

namespace ember::train {

struct TrainingProgress {
  Split split = Split::Train;
  int64_t epoch = 1, epochs = 1;
  int64_t iteration = 0, iterations = 0;  // steps done in this split's epoch, of this many
  double elapsed_s = 0;                   // since fit() started
  double eta_s = -1;                      // to the end of training; < 0: not known yet
  double steps_total = 0;                 // training steps of the whole run (the plots' x axis)
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual void progress(const TrainingProgress& progress) = 0;
  // After a metric read (`epoch_end` false) or at an epoch's end of `progress.split`.
  virtual void render(const MetricHistory& history, const TrainingProgress& progress,
                      bool epoch_end) = 0;
  // A line for the person (checkpoint saved, early stop, ...).
  virtual void message(const std::string& text) = 0;
  // Whether the person asked to stop (the dashboard's `q`).
  virtual bool stop_requested() { return false; }
  // Training is over; the dashboard gives the terminal back.
  virtual void finish() {}
};

// One line per read and per epoch, for logs and pipes (stdout, or a stream given).
class PlainRenderer : public Renderer {
 public:
  explicit PlainRenderer(std::FILE* out = stdout) : out_(out) {}
  void progress(const TrainingProgress&) override {}
  void render(const MetricHistory& history, const TrainingProgress& progress,
              bool epoch_end) override;
  void message(const std::string& text) override;

 private:
  std::FILE* out_;
};

// Everything shown also written as plain lines to a file (the artifact directory's
// experiment.log, as Burn's): the renderer's lines and messages, with the inner renderer's keys.
class ExperimentLogRenderer : public Renderer {
 public:
  // Appends to `path`; throws ember::Error when it cannot be opened.
  ExperimentLogRenderer(std::unique_ptr<Renderer> inner, const std::string& path);
  ~ExperimentLogRenderer() override;
  void progress(const TrainingProgress& progress) override { inner_->progress(progress); }
  void render(const MetricHistory& history, const TrainingProgress& progress,
              bool epoch_end) override;
  void message(const std::string& text) override;
  bool stop_requested() override { return inner_->stop_requested(); }
  void finish() override { inner_->finish(); }

 private:
  std::unique_ptr<Renderer> inner_;
  std::FILE* file_;
  std::unique_ptr<PlainRenderer> lines_;
};

// "1m05s", "12s", "--" for a negative time.
std::string format_duration(double seconds);

// The dashboard when stdout is a terminal (and TERM is set), plain lines otherwise.
std::unique_ptr<Renderer> default_renderer();

}  // namespace ember::train
