// The Learner on the tiny synthetic task: logged metrics against a plain re-run of the same
// steps and host loops, resuming (after an epoch, and after a stop inside one) against an
// uninterrupted run bit for bit, early stopping, checkpoint retention, summary and report.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "optim/optim.h"
#include "tests/nn/test_util.h"
#include "tests/train/synthetic.h"
#include "train/train.h"

namespace ember::train {
namespace {

using testing::Batch;
using testing::Classifier;
using testing::VectorLoader;
using Optim = optim::Optimizer<optim::AdamRule>;

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ember_learner_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

auto train_loader(uint64_t seed = 11) {
  return std::make_shared<VectorLoader>(testing::make_data(30, 1), 8, seed);
}
auto valid_loader() {
  return std::make_shared<VectorLoader>(testing::make_data(15, 2), 8, std::nullopt);
}

// Lines "a,b" of a file.
std::vector<std::pair<std::string, std::string>> csv_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    out.emplace_back(line.substr(0, comma), line.substr(comma + 1));
  }
  return out;
}

// epochs.csv: (epoch, metric) -> value.
std::map<std::pair<int64_t, std::string>, double> epoch_values(const std::filesystem::path& path) {
  std::map<std::pair<int64_t, std::string>, double> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string epoch, metric, value;
    std::getline(s, epoch, ',');
    std::getline(s, metric, ',');
    std::getline(s, value);
    out[{std::stoll(epoch), metric}] = std::stod(value);
  }
  return out;
}

TEST(Learner, LoggedMetricsMatchARecomputation) {
  const auto dir = fresh_dir("metrics");
  auto checkpointer = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  auto learner = LearnerBuilder<Classifier, optim::AdamRule>(dir.string())
                     .metric_train_numeric(LossMetric())
                     .metric_train_numeric(AccuracyMetric())
                     .metric_valid_numeric(LossMetric())
                     .metric_valid_numeric(AccuracyMetric())
                     .num_epochs(2)
                     .log_interval(2)
                     .with_checkpointer(checkpointer)
                     .checkpointing(CheckpointPolicy{10})
                     .renderer(std::make_unique<PlainRenderer>())
                     .report(false)
                     .build(testing::make_classifier(0.0), optim::AdamConfig().init(), 0.05);
  learner.fit(train_loader(), valid_loader());

  // The same steps by hand: per step the loss and the correct predictions, read at once.
  Classifier model = testing::make_classifier(0.0);
  Optim adam = optim::AdamConfig().init();
  auto loader = train_loader();
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    loader->set_epoch(static_cast<size_t>(epoch - 1));
    auto it = loader->iter();
    std::vector<double> loss_sum, items, correct;
    while (auto b = it->next()) {
      auto out = model.train_step(*b);
      const double n = static_cast<double>(b->host_y.size());
      loss_sum.push_back(out.item.loss.into_scalar<double>() * n);
      auto pred = out.item.output.argmax(1).to_data().to_vec<int32_t>();
      double hits = 0;
      for (size_t i = 0; i < pred.size(); ++i) hits += pred[i] == b->host_y[i];
      correct.push_back(hits);
      items.push_back(n);
      model = adam.step(0.05, model, std::move(out.grads));
    }
    ASSERT_EQ(items.size(), 4u);
    const auto logged = csv_lines(dir / "train" / ("epoch-" + std::to_string(epoch)) / "Loss.log");
    ASSERT_EQ(logged.size(), 2u);  // reads after steps 2 and 4
    EXPECT_EQ(logged[0].first, "2");
    EXPECT_NEAR(std::stod(logged[0].second), (loss_sum[0] + loss_sum[1]) / (items[0] + items[1]),
                1e-5);
    EXPECT_NEAR(std::stod(logged[1].second), (loss_sum[2] + loss_sum[3]) / (items[2] + items[3]),
                1e-5);
    const auto epochs = epoch_values(dir / "train" / "epochs.csv");
    double all_loss = 0, all_items = 0, all_correct = 0;
    for (size_t i = 0; i < 4; ++i)
      all_loss += loss_sum[i], all_items += items[i], all_correct += correct[i];
    EXPECT_NEAR(epochs.at({epoch, "Loss"}), all_loss / all_items, 1e-5);
    EXPECT_NEAR(epochs.at({epoch, "Accuracy"}), 100.0 * all_correct / all_items, 1e-9);
  }

  // Validation: the epoch's saved model evaluated with host loops.
  const auto valid = testing::make_data(15, 2);
  const auto valid_epochs = epoch_values(dir / "valid" / "epochs.csv");
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    Optim unused = optim::AdamConfig().init();
    TrainingState state;
    Classifier m = checkpointer->restore(epoch, model, unused, state);
    auto w = m.fc.weight.val().to_data().to_vec<double>();  // [4, 3]
    auto bias = m.fc.bias->val().to_data().to_vec<double>();
    double loss = 0, hits = 0;
    for (int64_t i = 0; i < valid.n; ++i) {
      double z[3];
      for (int c = 0; c < 3; ++c) {
        z[c] = bias[c];
        for (int f = 0; f < 4; ++f) z[c] += valid.x[i * 4 + f] * w[f * 3 + c];
      }
      const double top = std::max({z[0], z[1], z[2]});
      const double lse =
          top + std::log(std::exp(z[0] - top) + std::exp(z[1] - top) + std::exp(z[2] - top));
      loss += lse - z[valid.y[i]];
      const int arg = static_cast<int>(std::max_element(z, z + 3) - z);
      hits += arg == valid.y[i];
    }
    EXPECT_NEAR(valid_epochs.at({epoch, "Loss"}), loss / valid.n, 1e-5) << "epoch " << epoch;
    EXPECT_NEAR(valid_epochs.at({epoch, "Accuracy"}), 100.0 * hits / valid.n, 1e-9);
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "valid" / "epoch-2" / "Accuracy.log"));
  // experiment.log has what the renderer showed, as plain lines.
  std::ifstream log(dir / "experiment.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("epoch 2/2 valid done: Loss"), std::string::npos) << text;
  EXPECT_NE(text.find("[train] epoch 1/2 iter 2/4"), std::string::npos) << text;
  // Event files for both splits, readable with their CRCs checked.
  for (const char* split : {"train", "valid"}) {
    auto file = std::filesystem::directory_iterator(dir / "tensorboard" / split)->path();
    EXPECT_FALSE(read_scalar_events(file.string()).empty());
  }
}

// Stops the run (through its interrupter) when the given global step has been updated.
class StopAt : public LearningRateMetric {
 public:
  StopAt(Interrupter interrupter, int64_t step) : interrupter_(interrupter), step_(step) {}
  std::string name() const override { return "StopAt"; }
  void update(const MetricInput& in, const MetricMetadata& meta) override {
    if (meta.global_step == step_) interrupter_.stop();
    LearningRateMetric::update(in, meta);
  }

 private:
  Interrupter interrupter_;
  int64_t step_;
};

struct RunResult {
  std::vector<float> params;
  FitResult result;
  std::map<int64_t, double> train_loss;  // epoch -> the training loss's epoch value
};

RunResult train_run(std::shared_ptr<MemoryCheckpointer<Classifier, Optim>> checkpointer,
                    std::optional<int64_t> resume, std::optional<int64_t> stop_at,
                    int64_t grad_accumulation = 1) {
  Interrupter interrupter;
  LearnerBuilder<Classifier, optim::AdamRule> builder("");
  builder.metric_train_numeric(LossMetric())
      .metric_valid_numeric(AccuracyMetric())
      .num_epochs(3)
      .grad_accumulation(grad_accumulation)
      .with_checkpointer(checkpointer)
      .checkpointing(CheckpointPolicy{10})
      .interrupter(interrupter)
      .renderer(std::make_unique<PlainRenderer>());
  if (resume) builder.checkpoint(*resume);
  if (stop_at) builder.metric_train_numeric(StopAt(interrupter, *stop_at));
  // A decaying rate: the scheduler's position is part of what a resume restores.
  optim::ExponentialLrScheduler lr(0.05, 0.9);
  auto learner = builder.build(testing::make_classifier(0.3), optim::AdamConfig().init(), lr);
  Classifier trained = learner.fit(train_loader(), valid_loader());
  RunResult run{testing::parameters(trained), learner.result(), {}};
  if (const MetricSeries* loss = learner.history().find("Loss")) {
    for (const auto& [epoch, value] : loss->epochs[static_cast<int>(Split::Train)])
      run.train_loss[epoch] = value;
  }
  return run;
}

TEST(Learner, ResumeAfterAnEpochContinuesTheSameTrajectory) {
  auto checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  RunResult full = train_run(checkpoints, std::nullopt, std::nullopt);
  EXPECT_EQ(full.result.epochs_completed, 3);
  EXPECT_EQ(checkpoints->epochs(), (std::set<int64_t>{1, 2, 3}));
  RunResult resumed = train_run(checkpoints, 1, std::nullopt);
  EXPECT_EQ(resumed.params, full.params);  // bit-identical on the CPU
  // A different trajectory is detectable: resuming without restoring would differ.
  RunResult fresh_one_epoch_less =
      train_run(std::make_shared<MemoryCheckpointer<Classifier, Optim>>(), std::nullopt,
                9);  // stopped in epoch 3
  EXPECT_NE(fresh_one_epoch_less.params, full.params);
}

TEST(Learner, StopInsideAnEpochLeavesACheckpointToResumeFrom) {
  auto full_checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  RunResult full = train_run(full_checkpoints, std::nullopt, std::nullopt);
  auto checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  RunResult stopped =
      train_run(checkpoints, std::nullopt, 6);  // epoch 2 has 4 steps: its second step
  EXPECT_TRUE(stopped.result.interrupted);
  EXPECT_EQ(stopped.result.epochs_completed, 1);
  EXPECT_EQ(checkpoints->epochs(), (std::set<int64_t>{1, 2}));
  Optim unused = optim::AdamConfig().init();
  TrainingState state;
  checkpoints->restore(2, testing::make_classifier(0.3), unused, state);
  EXPECT_EQ(state.epoch, 2);
  EXPECT_EQ(state.iteration, 2);
  EXPECT_EQ(state.global_step, 6);
  RunResult resumed = train_run(checkpoints, 2, std::nullopt);
  EXPECT_FALSE(resumed.result.interrupted);
  EXPECT_EQ(resumed.result.epochs_completed, 3);
  EXPECT_EQ(resumed.params, full.params);
  // The stopped epoch's training loss covers its steps before the stop too: the same value as
  // the uninterrupted run's (the loss of the steps after the stop alone differs).
  ASSERT_EQ(full.train_loss.size(), 3u);
  ASSERT_EQ(resumed.train_loss.size(), 3u);
  // (Up to f32 rounding: the device sums steps in f32 between reads, and the stop adds a read.)
  for (int64_t epoch = 1; epoch <= 3; ++epoch)
    EXPECT_NEAR(resumed.train_loss[epoch], full.train_loss[epoch], 1e-6) << "epoch " << epoch;
  EXPECT_EQ(state.metric_states.size(), 2u);  // Loss's sums and StopAt's reads
}

TEST(Learner, GradientAccumulationResumesOnOptimizerSteps) {
  auto full_checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  RunResult full = train_run(full_checkpoints, std::nullopt, std::nullopt, 2);
  RunResult plain = train_run(std::make_shared<MemoryCheckpointer<Classifier, Optim>>(),
                              std::nullopt, std::nullopt, 1);
  EXPECT_NE(full.params, plain.params);  // accumulating changes the steps taken
  auto checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  train_run(checkpoints, std::nullopt, 5, 2);  // step 5 is mid-accumulation: stops after step 6
  Optim unused = optim::AdamConfig().init();
  TrainingState state;
  checkpoints->restore(2, testing::make_classifier(0.3), unused, state);
  EXPECT_EQ(state.iteration, 2);
  EXPECT_EQ(state.optimizer_steps, 3);  // two in epoch 1, one in epoch 2
  EXPECT_EQ(train_run(checkpoints, 2, std::nullopt, 2).params, full.params);
}

// Reports a fixed value per epoch (on the validation split).
class Scripted : public Metric {
 public:
  explicit Scripted(std::vector<double> values) : values_(std::move(values)) {}
  std::string name() const override { return "Scripted"; }
  void update(const MetricInput&, const MetricMetadata& meta) override { epoch_ = meta.epoch; }
  std::optional<double> read() override { return epoch_value(); }
  double epoch_value() const override { return values_.at(static_cast<size_t>(epoch_ - 1)); }
  void clear() override {}

 private:
  std::vector<double> values_;
  int64_t epoch_ = 1;
};

TEST(Learner, EarlyStoppingWhenTheMetricStopsImproving) {
  // Lowest is best: 5, 4, 4.5, 4.2, ... -> epoch 2 stays best; patience 2 stops after epoch 4.
  auto learner = LearnerBuilder<Classifier, optim::AdamRule>("")
                     .metric_valid_numeric(Scripted({5, 4, 4.5, 4.2, 3, 3, 3, 3}))
                     .num_epochs(8)
                     .early_stopping(std::make_shared<MetricEarlyStoppingStrategy>(
                         "Scripted", Split::Valid, Direction::Lowest, 2))
                     .renderer(std::make_unique<PlainRenderer>())
                     .build(testing::make_classifier(0.0), optim::AdamConfig().init(), 0.01);
  learner.fit(train_loader(), valid_loader());
  EXPECT_TRUE(learner.result().early_stopped);
  EXPECT_EQ(learner.result().epochs_completed, 4);
  // An improvement smaller than min_delta does not count: 5, 4.95 with min_delta 0.1 stops
  // after epoch 3 (best stays epoch 1).
  MetricHistory h;
  Scripted metric({});
  MetricEarlyStoppingStrategy s("Scripted", Split::Valid, Direction::Lowest, 2, 0.1);
  h.add_epoch(Split::Valid, metric, 1, 5.0);
  h.add_epoch(Split::Valid, metric, 2, 4.95);
  EXPECT_FALSE(s.should_stop(2, h));
  h.add_epoch(Split::Valid, metric, 3, 4.92);
  EXPECT_TRUE(s.should_stop(3, h));
  EXPECT_NE(s.reason().find("since epoch 1"), std::string::npos);
}

// The epoch values of `metric` on `split`, in epoch order.
std::vector<double> epoch_series(const MetricHistory& h, const std::string& metric, Split split) {
  std::vector<double> out;
  if (const MetricSeries* s = h.find(metric)) {
    for (const auto& [e, v] : s->epochs[static_cast<int>(split)]) out.push_back(v);
  }
  return out;
}

RunResult plateau_run(std::shared_ptr<MemoryCheckpointer<Classifier, Optim>> checkpointer,
                      std::optional<int64_t> resume, std::vector<double>* lrs = nullptr) {
  // Lowest is best: 5, 4, then 4 again and again. Patience 1: the rate halves after the
  // second epoch without improvement (epoch 4) and again after epoch 6.
  LearnerBuilder<Classifier, optim::AdamRule> builder("");
  builder.metric_train_numeric(LearningRateMetric())
      .metric_valid_numeric(Scripted({5, 4, 4, 4, 4, 4, 4}))
      .num_epochs(7)
      .with_checkpointer(checkpointer)
      .checkpointing(CheckpointPolicy{10})
      .reduce_lr_on_plateau(optim::ReduceLrOnPlateau(1.0, {.factor = 0.5, .patience = 1}),
                            "Scripted")
      .renderer(std::make_unique<PlainRenderer>());
  if (resume) builder.checkpoint(*resume);
  auto learner = builder.build(testing::make_classifier(0.3), optim::AdamConfig().init(), 0.01);
  Classifier trained = learner.fit(train_loader(), valid_loader());
  if (lrs != nullptr) *lrs = epoch_series(learner.history(), "Learning Rate", Split::Train);
  return {testing::parameters(trained), learner.result()};
}

TEST(Learner, ReduceLrOnPlateauLowersTheRateWhenTheMetricStalls) {
  std::vector<double> lrs;
  plateau_run(std::make_shared<MemoryCheckpointer<Classifier, Optim>>(), std::nullopt, &lrs);
  const std::vector<double> want = {0.01, 0.01, 0.01, 0.01, 0.005, 0.005, 0.0025};
  ASSERT_EQ(lrs.size(), want.size());
  for (size_t e = 0; e < want.size(); ++e) EXPECT_NEAR(lrs[e], want[e], 1e-12) << "epoch " << e + 1;
  // A metric the rule cannot see is refused before training.
  using Builder = LearnerBuilder<Classifier, optim::AdamRule>;
  auto unseen = [] {
    Builder("")
        .metric_valid_numeric(LossMetric())
        .reduce_lr_on_plateau(optim::ReduceLrOnPlateau(1.0), "Accuracy")
        .renderer(std::make_unique<PlainRenderer>())
        .build(testing::make_classifier(0.0), optim::AdamConfig().init(), 0.01)
        .fit(train_loader(), valid_loader());
  };
  EXPECT_THROW(unseen(), Error);
}

// The rule's position (best value, epochs without improvement, rate) is in the checkpoint:
// resumed after epoch 5 (rate halved once, one bad epoch counted), the run ends where the
// uninterrupted one does. Replaying the scheduler alone could not know it.
TEST(Learner, ResumeRestoresTheSchedulerAndThePlateauRule) {
  auto checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  RunResult full = plateau_run(checkpoints, std::nullopt);
  Optim unused = optim::AdamConfig().init();
  TrainingState state;
  checkpoints->restore(5, testing::make_classifier(0.3), unused, state);
  EXPECT_FALSE(state.scheduler.empty());
  EXPECT_FALSE(state.plateau.empty());
  EXPECT_DOUBLE_EQ(state.lr, 0.005);
  EXPECT_EQ(plateau_run(checkpoints, 5).params, full.params);
  // Through JSON too, and a checkpoint from before these fields still loads (replayed).
  TrainingState back = TrainingState::from_json(state.to_json(), "test");
  EXPECT_EQ(back.scheduler, state.scheduler);
  EXPECT_EQ(back.plateau, state.plateau);
  EXPECT_DOUBLE_EQ(back.lr, state.lr);
  auto old = nlohmann::json::parse(state.to_json());
  old.erase("scheduler"), old.erase("plateau"), old.erase("lr");
  TrainingState legacy = TrainingState::from_json(old.dump(), "old");
  EXPECT_TRUE(legacy.scheduler.empty());
  EXPECT_EQ(legacy.optimizer_steps, state.optimizer_steps);
}

// A run resumed from epoch 1 of a finished 3-epoch run in the same directory logs each read
// and each epoch value once: what the first run logged after its checkpoint is replaced.
TEST(Learner, ResumedRunsDoNotLogTwice) {
  const auto dir = fresh_dir("relog");
  auto checkpoints = std::make_shared<MemoryCheckpointer<Classifier, Optim>>();
  auto run = [&](std::optional<int64_t> resume) {
    LearnerBuilder<Classifier, optim::AdamRule> builder(dir.string());
    builder.metric_train_numeric(LossMetric())
        .metric_valid_numeric(LossMetric())
        .num_epochs(3)
        .log_interval(1)
        .with_checkpointer(checkpoints)
        .checkpointing(CheckpointPolicy{10})
        .tensorboard(false)
        .report(false)
        .renderer(std::make_unique<PlainRenderer>());
    if (resume) builder.checkpoint(*resume);
    builder.build(testing::make_classifier(0.3), optim::AdamConfig().init(), 0.01)
        .fit(train_loader(), valid_loader());
  };
  run(std::nullopt);
  const auto first = epoch_values(dir / "train" / "epochs.csv");
  run(1);
  const auto again = epoch_values(dir / "train" / "epochs.csv");
  EXPECT_EQ(again, first) << "the same trajectory, each epoch value once";
  EXPECT_EQ(csv_lines(dir / "train" / "epochs.csv").size(), 3u);
  EXPECT_EQ(csv_lines(dir / "valid" / "epochs.csv").size(), 3u);
  const auto reads = csv_lines(dir / "train" / "epoch-2" / "Loss.log");
  ASSERT_EQ(reads.size(), 4u);  // 4 steps, each read once
  for (size_t i = 0; i < reads.size(); ++i) EXPECT_EQ(reads[i].first, std::to_string(i + 1));
  EXPECT_FALSE(std::filesystem::exists(dir / "train" / "epochs.csv.tmp"));
}

TEST(Learner, CheckpointPolicyKeepsTheLastAndTheBest) {
  MetricHistory h;
  AccuracyMetric acc;
  for (auto [e, v] : std::vector<std::pair<int64_t, double>>{{1, 50}, {2, 90}, {3, 70}, {4, 80}}) {
    h.add_epoch(Split::Valid, acc, e, v);
  }
  CheckpointPolicy keep_two{2, "Accuracy", Split::Valid};
  EXPECT_EQ(keep_two.to_delete({1, 2, 3, 4}, h), (std::vector<int64_t>{1}));  // 2 is the best
  CheckpointPolicy keep_one{1};
  EXPECT_EQ(keep_one.to_delete({1, 2, 3, 4}, h), (std::vector<int64_t>{1, 2, 3}));
}

TEST(Learner, SummaryAndReport) {
  const auto dir = fresh_dir("report");
  auto learner = LearnerBuilder<Classifier, optim::AdamRule>(dir.string())
                     .metric_train_numeric(LossMetric())
                     .metric_valid_numeric(LossMetric())
                     .metric_valid_numeric(AccuracyMetric())
                     .num_epochs(2)
                     .renderer(std::make_unique<PlainRenderer>())
                     .build(testing::make_classifier(0.0), optim::AdamConfig().init(), 0.05);
  learner.fit(train_loader(), valid_loader());
  const std::string& summary = learner.result().summary;
  EXPECT_NE(summary.find("| Loss"), std::string::npos) << summary;
  EXPECT_NE(summary.find("| Accuracy"), std::string::npos) << summary;
  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed";
  EXPECT_EQ(learner.result().report_path, (dir / "report" / "report.html").string());
  EXPECT_GT(std::filesystem::file_size(dir / "report" / "Loss.png"), 1000u);
  EXPECT_GT(std::filesystem::file_size(dir / "report" / "Accuracy.png"), 1000u);
}

}  // namespace
}  // namespace ember::train
