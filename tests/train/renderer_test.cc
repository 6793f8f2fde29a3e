// The plain renderer's lines and the durations it prints.
#include "train/renderer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "train/metric/accuracy.h"
#include "train/metric/loss.h"

namespace ember::train {
namespace {

TEST(Renderer, Durations) {
  EXPECT_EQ(format_duration(0.4), "0s");
  EXPECT_EQ(format_duration(59.6), "1m00s");
  EXPECT_EQ(format_duration(65), "1m05s");
  EXPECT_EQ(format_duration(3 * 3600 + 7 * 60 + 5), "3h07m");
  EXPECT_EQ(format_duration(-1), "--");
}

std::string render_to_string(bool epoch_end) {
  MetricHistory history;
  LossMetric loss;
  AccuracyMetric accuracy;
  history.add_point(Split::Train, loss, 10, 0.25);
  history.add_point(Split::Train, accuracy, 10, 87.5);
  history.add_epoch(Split::Train, loss, 2, 0.3);
  TrainingProgress p;
  p.epoch = 2, p.epochs = 3, p.iteration = 10, p.iterations = 40, p.eta_s = 125;
  char buf[512] = {};
  std::FILE* f = fmemopen(buf, sizeof buf - 1, "w");
  PlainRenderer(f).render(history, p, epoch_end);
  std::fclose(f);
  return buf;
}

TEST(Renderer, PlainLines) {
  EXPECT_EQ(render_to_string(false),
            "[train] epoch 2/3 iter 10/40 ( 25%) ETA 2m05s | Loss 0.2500 | Accuracy 87.50 %\n");
  // At an epoch's end: the epoch values of the metrics that have one for this epoch.
  EXPECT_EQ(render_to_string(true), "epoch 2/3 train done: Loss 0.3000\n");
}

}  // namespace
}  // namespace ember::train
