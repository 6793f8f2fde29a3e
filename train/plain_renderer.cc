#include <cmath>
#include <cstdio>
#include <string>

#include "ir/error.h"
#include "train/renderer.h"

namespace ember::train {

std::string format_duration(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "--";
  const auto s = static_cast<int64_t>(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  } else if (s >= 60) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  }
  return buf;
}

void PlainRenderer::render(const MetricHistory& history, const TrainingProgress& p,
                           bool epoch_end) {
  const int split = static_cast<int>(p.split);
  std::string line;
  if (epoch_end) {
    line = "epoch " + std::to_string(p.epoch) + "/" + std::to_string(p.epochs) + " " +
           split_name(p.split) + " done:";
    for (const auto& s : history.all()) {
      if (s.epochs[split].empty() || s.epochs[split].back().first != p.epoch) continue;
      char value[64];
      std::snprintf(value, sizeof value, "%.*f", s.precision, s.epochs[split].back().second);
      line += " " + s.name + " " + value + (s.unit.empty() ? "" : " " + s.unit) + ",";
    }
    if (line.back() == ',') line.pop_back();
  } else {
    const double percent = p.iterations > 0 ? 100.0 * p.iteration / p.iterations : 0;
    char head[160];
    std::snprintf(head, sizeof head, "[%s] epoch %lld/%lld iter %lld/%lld (%3.0f%%) ETA %s |",
                  split_name(p.split), static_cast<long long>(p.epoch),
                  static_cast<long long>(p.epochs), static_cast<long long>(p.iteration),
                  static_cast<long long>(p.iterations), percent, format_duration(p.eta_s).c_str());
    line = head;
    for (const auto& s : history.all()) {
      if (!s.current[split].empty()) line += " " + s.name + " " + s.current[split] + " |";
    }
    while (line.back() == '|' || line.back() == ' ') line.pop_back();
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void PlainRenderer::message(const std::string& text) {
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

ExperimentLogRenderer::ExperimentLogRenderer(std::unique_ptr<Renderer> inner,
                                             const std::string& path)
    : inner_(std::move(inner)), file_(std::fopen(path.c_str(), "a")) {
  if (!file_) throw Error("ExperimentLogRenderer: cannot open " + path);
  lines_ = std::make_unique<PlainRenderer>(file_);
}

ExperimentLogRenderer::~ExperimentLogRenderer() {
  lines_.reset();
  std::fclose(file_);
}

void ExperimentLogRenderer::render(const MetricHistory& history, const TrainingProgress& progress,
                                   bool epoch_end) {
  inner_->render(history, progress, epoch_end);
  lines_->render(history, progress, epoch_end);
}

void ExperimentLogRenderer::message(const std::string& text) {
  inner_->message(text);
  lines_->message(text);
}

}  // namespace ember::train
