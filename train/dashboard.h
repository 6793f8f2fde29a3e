#pragma once
// The terminal dashboard (Burn's TUI), drawn with ncurses: progress with ETA, epoch and
// iteration, each metric's current train and valid values, and a plot per numeric metric of its
// train and valid reads; `q` asks the Learner to stop (it stops at the next step and leaves a
// checkpoint).
#include <chrono>
#include <deque>
#include <string>

#include "train/renderer.h"

namespace ember::train {

class Dashboard : public Renderer {
 public:
  // Takes over the terminal (ember::Error when ncurses cannot start).
  Dashboard();
  ~Dashboard() override;
  Dashboard(const Dashboard&) = delete;
  Dashboard& operator=(const Dashboard&) = delete;

  void progress(const TrainingProgress& progress) override;
  void render(const MetricHistory& history, const TrainingProgress& progress,
              bool epoch_end) override;
  void message(const std::string& text) override;
  bool stop_requested() override;
  void finish() override;

 private:
  void poll_keys();
  void draw();
  void draw_header(int width);
  int draw_table(int top, int width);
  void draw_plots(int top, int width, int height);
  void draw_plot(const MetricSeries& series, int top, int left, int width, int height);

  bool active_ = false;
  bool stop_ = false;
  MetricHistory history_;
  TrainingProgress progress_;
  std::deque<std::string> messages_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace ember::train
