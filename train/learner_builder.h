#pragma once
// LearnerBuilder (Burn's): the artifact directory, metrics per split, epochs, gradient
// accumulation, checkpointing, early stopping, an interrupter, the renderer, the device strategy
// and the summary, then build(model, optimizer, learning rate or scheduler).
#include <concepts>
#include <memory>
#include <string>
#include <utility>

#include "train/learner.h"

namespace ember::train {

template <nn::Module M, class Rule>
class LearnerBuilder {
 public:
  using Optim = optim::Optimizer<Rule>;
  using Parts = typename Learner<M, Rule>::Parts;

  explicit LearnerBuilder(std::string artifact_dir) { config_.artifact_dir = artifact_dir; }

  // Every metric here is numeric (plotted); Burn's metric_train / metric_train_numeric alike.
  template <std::derived_from<Metric> T>
  LearnerBuilder& metric_train_numeric(T metric) {
    train_metrics_.push_back(std::make_unique<T>(std::move(metric)));
    return *this;
  }
  template <std::derived_from<Metric> T>
  LearnerBuilder& metric_valid_numeric(T metric) {
    valid_metrics_.push_back(std::make_unique<T>(std::move(metric)));
    return *this;
  }
  template <std::derived_from<Metric> T>
  LearnerBuilder& metric_train(T metric) {
    return metric_train_numeric(std::move(metric));
  }
  template <std::derived_from<Metric> T>
  LearnerBuilder& metric_valid(T metric) {
    return metric_valid_numeric(std::move(metric));
  }
  LearnerBuilder& num_epochs(int64_t n) { return set(config_.num_epochs, n); }
  LearnerBuilder& grad_accumulation(int64_t steps) { return set(config_.grad_accumulation, steps); }
  LearnerBuilder& log_interval(int64_t steps) { return set(config_.log_interval, steps); }
  LearnerBuilder& summary() { return set(config_.summary, true); }
  LearnerBuilder& tensorboard(bool on) { return set(config_.tensorboard, on); }
  LearnerBuilder& file_logs(bool on) { return set(config_.file_logs, on); }
  LearnerBuilder& report(bool on) { return set(config_.report, on); }
  // Continue from the checkpoint of `epoch` (Burn's checkpoint(epoch)).
  LearnerBuilder& checkpoint(int64_t epoch) { return set(config_.resume_epoch, epoch); }
  LearnerBuilder& with_checkpointer(std::shared_ptr<Checkpointer<M, Optim>> checkpointer) {
    return set(checkpointer_, std::move(checkpointer));
  }
  // Keep the last `keep_last` checkpoints and the best by `metric` on `split` (if named).
  LearnerBuilder& checkpointing(CheckpointPolicy policy) {
    return set(config_.checkpointing, std::move(policy));
  }
  LearnerBuilder& early_stopping(std::shared_ptr<EarlyStoppingStrategy> strategy) {
    return set(early_stopping_, std::move(strategy));
  }
  LearnerBuilder& interrupter(Interrupter interrupter) {
    return set(interrupter_, std::move(interrupter));
  }
  LearnerBuilder& renderer(std::unique_ptr<Renderer> renderer) {
    return set(renderer_, std::move(renderer));
  }
  LearnerBuilder& devices(std::shared_ptr<DeviceStrategy> strategy) {
    return set(strategy_, std::move(strategy));
  }
  // After each epoch `rule` looks at `metric`'s value on `split` and may lower the rate: every
  // step then uses the scheduler's rate times rule.lr() / its initial rate (PyTorch's
  // ReduceLROnPlateau beside another scheduler). Its position is saved in checkpoints.
  LearnerBuilder& reduce_lr_on_plateau(optim::ReduceLrOnPlateau rule, std::string metric,
                                       Split split = Split::Valid) {
    const double initial = rule.lr();
    if (!(initial > 0)) {
      throw Error(
          "LearnerBuilder::reduce_lr_on_plateau: the rule's initial rate must be > 0, got " +
          std::to_string(initial));
    }
    plateau_.emplace(LrPlateau{std::move(rule), std::move(metric), split, initial});
    return *this;
  }
  // Ctrl-C stops at the next step with a checkpoint instead of ending the program.
  LearnerBuilder& stop_on_ctrl_c() { return set(ctrl_c_, true); }

  Learner<M, Rule> build(M model, Optim optimizer, double lr) {
    return build(std::move(model), std::move(optimizer), optim::ConstantLr(lr));
  }
  Learner<M, Rule> build(M model, Optim optimizer, const optim::LrScheduler& scheduler) {
    if (!strategy_) {
      auto devices = nn::devices(model);
      strategy_ = std::make_shared<SingleDeviceStrategy>(devices.empty() ? Device::default_device()
                                                                         : devices.front());
    }
    if (!renderer_) renderer_ = default_renderer();
    if (ctrl_c_) interrupter_.install_sigint_handler();
    return Learner<M, Rule>(Parts{std::move(config_), std::move(model), std::move(optimizer),
                                  scheduler.clone(), std::move(plateau_), std::move(train_metrics_),
                                  std::move(valid_metrics_), std::move(checkpointer_),
                                  std::move(early_stopping_), interrupter_, std::move(renderer_),
                                  std::move(strategy_)});
  }

 private:
  template <class F, class V>
  LearnerBuilder& set(F& field, V&& value) {
    field = std::forward<V>(value);
    return *this;
  }

  LearnerConfig config_;
  std::vector<std::unique_ptr<Metric>> train_metrics_, valid_metrics_;
  std::shared_ptr<Checkpointer<M, Optim>> checkpointer_;
  std::shared_ptr<EarlyStoppingStrategy> early_stopping_;
  Interrupter interrupter_;
  std::unique_ptr<Renderer> renderer_;
  std::shared_ptr<DeviceStrategy> strategy_;
  std::optional<LrPlateau> plateau_;
  bool ctrl_c_ = false;
};

}  // namespace ember::train
