#pragma once
// The Learner (Burn's Learner and LearnerBuilder): runs the model's training and validation
// steps over data loaders for a number of epochs, steps the optimizer with the scheduler's
// learning rate, computes metrics on the device, and writes checkpoints, per-epoch metric logs,
// TensorBoard event files and a report, while a renderer (the dashboard on a terminal) shows
// progress:
//
//   auto learner = train::LearnerBuilder<Model, optim::AdamRule>("/tmp/guide")
//                      .metric_train_numeric(train::AccuracyMetric())
//                      .metric_valid_numeric(train::AccuracyMetric())
//                      .metric_train_numeric(train::LossMetric())
//                      .metric_valid_numeric(train::LossMetric())
//                      .with_file_checkpointer()
//                      .num_epochs(3)
//                      .summary()
//                      .build(model, optim::AdamConfig().init(), 1e-3);
//   Model trained = learner.fit(train_loader, valid_loader);
//
// The model provides the steps (Burn's TrainStep and ValidStep):
//   train::TrainOutput<O> train_step(const TrainBatch&) const;   // gradients and an output
//   O2 valid_step(const ValidBatch&) const;                       // an output
// A loader is anything with iter() -> (pointer to) an iterator with next() -> std::optional<Batch>,
// and num_batches(); set_epoch(n), when it has one, is called before each epoch so that a resumed
// run sees the same batches (data/dataloader.h's DataLoader is one).
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/autodiff.h"
#include "frontend/device.h"
#include "optim/grads_accumulator.h"
#include "optim/optimizer.h"
#include "optim/scheduler/constant.h"
#include "optim/scheduler/reduce_on_plateau.h"
#include "train/checkpoint.h"
#include "train/device_strategy.h"
#include "train/early_stopping.h"
#include "train/interrupter.h"
#include "train/learner_config.h"
#include "train/logger.h"
#include "train/metric_set.h"
#include "train/output.h"
#include "train/renderer.h"
#include "train/report.h"
#include "train/summary.h"

namespace ember::train {

template <class M, class Batch>
concept TrainStep = requires(const M& model, const Batch& batch) {
  { model.train_step(batch).grads } -> std::convertible_to<optim::GradientsParams>;
  { model.train_step(batch).item.metric_input() } -> std::same_as<MetricInput>;
};

template <class M, class Batch>
concept ValidStep = requires(const M& model, const Batch& batch) {
  { model.valid_step(batch).metric_input() } -> std::same_as<MetricInput>;
};

// What fit() did, besides returning the model.
struct FitResult {
  int64_t epochs_completed = 0;  // the last epoch run to its end
  bool interrupted = false;      // stopped by the interrupter, Ctrl-C or the dashboard's `q`
  bool early_stopped = false;
  std::string summary;      // the summary table
  std::string report_path;  // empty when no report was written
};

// Lowers the learning rate when an epoch metric stalls (LearnerBuilder::reduce_lr_on_plateau):
// each optimizer step uses the scheduler's rate times rule.lr() / initial.
struct LrPlateau {
  optim::ReduceLrOnPlateau rule;
  std::string metric;
  Split split;
  double initial;  // rule.lr() when it was given
};

template <nn::Module M, class Rule>
class Learner {
 public:
  using Optim = optim::Optimizer<Rule>;

  struct Parts {
    LearnerConfig config;
    M model;
    Optim optimizer;
    std::unique_ptr<optim::LrScheduler> scheduler;
    std::optional<LrPlateau> plateau;
    std::vector<std::unique_ptr<Metric>> train_metrics, valid_metrics;
    std::shared_ptr<Checkpointer<M, Optim>> checkpointer;
    std::shared_ptr<EarlyStoppingStrategy> early_stopping;
    Interrupter interrupter;
    std::unique_ptr<Renderer> renderer;
    std::shared_ptr<DeviceStrategy> strategy;
  };

  explicit Learner(Parts parts) : p_(std::move(parts)) {
    for (auto& m : p_.train_metrics) train_metrics_.add(std::move(m));
    for (auto& m : p_.valid_metrics) valid_metrics_.add(std::move(m));
  }

  // Trains and returns the model (the state after the last step run).
  template <class TrainLoader, class ValidLoader>
  M fit(std::shared_ptr<TrainLoader> train, std::shared_ptr<ValidLoader> valid);

  const FitResult& result() const { return result_; }
  const MetricHistory& history() const { return history_; }
  const Optim& optimizer() const { return p_.optimizer; }

 private:
  void start();
  void resume(int64_t epoch);
  void restore_metric_states(const TrainingState& state);
  template <class Loader>
  bool train_epoch(Loader& loader, int64_t epoch, int64_t skip);
  template <class Loader>
  void valid_epoch(Loader& loader, int64_t epoch);
  void save_checkpoint(int64_t epoch, int64_t iteration);
  // The plateau rule's look at the epoch's value of its metric.
  void step_plateau(int64_t epoch);
  double plateau_scale() const {
    return p_.plateau ? p_.plateau->rule.lr() / p_.plateau->initial : 1.0;
  }
  void finish();
  bool stop_requested() const {
    return p_.interrupter.should_stop() || p_.renderer->stop_requested();
  }
  TrainingProgress progress(Split split, int64_t epoch, int64_t iteration,
                            int64_t iterations) const;
  std::vector<MetricLogger*> loggers() const;
  // The model's parameter ids in declaration order (what the device strategy buckets by).
  std::vector<nn::ParamId> param_order() const {
    std::vector<nn::ParamId> order;
    nn::visit_params(p_.model, [&](const std::string&, const auto& p) { order.push_back(p.id()); });
    return order;
  }

  Parts p_;
  MetricSet train_metrics_{Split::Train}, valid_metrics_{Split::Valid};
  MetricHistory history_;
  std::unique_ptr<MetricLogger> file_logger_, event_logger_;
  std::set<int64_t> saved_epochs_;
  FitResult result_;
  int64_t global_step_ = 0, optimizer_steps_ = 0, start_epoch_ = 1, skip_ = 0;
  int64_t train_iterations_ = 0, valid_iterations_ = 0;
  // The ETA: steps done over the whole run (a resumed one included) and in this process, and
  // the time validation took, so that training and validation steps each have their own rate.
  int64_t train_done_ = 0, valid_done_ = 0, train_run_ = 0, valid_run_ = 0;
  double valid_seconds_ = 0;
  std::optional<std::chrono::steady_clock::time_point> valid_start_;
  double lr_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace ember::train

#include "train/learner_impl.h"
