#pragma once
// The Learner's template members (included by learner.h).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ember::train {

namespace detail {

template <class Loader>
void start_loader_epoch(Loader& loader, int64_t epoch) {
  if constexpr (requires { loader.set_epoch(size_t{1}); }) {
    loader.set_epoch(static_cast<size_t>(epoch - 1));  // the loader counts from 0
  }
}

template <class Loader>
int64_t num_batches(const Loader& loader) {
  return static_cast<int64_t>(loader.num_batches());
}

}  // namespace detail

template <nn::Module M, class Rule>
std::vector<MetricLogger*> Learner<M, Rule>::loggers() const {
  std::vector<MetricLogger*> out;
  if (file_logger_) out.push_back(file_logger_.get());
  if (event_logger_) out.push_back(event_logger_.get());
  return out;
}

template <nn::Module M, class Rule>
TrainingProgress Learner<M, Rule>::progress(Split split, int64_t epoch, int64_t iteration,
                                            int64_t iterations) const {
  TrainingProgress p;
  p.split = split;
  p.epoch = epoch;
  p.epochs = p_.config.num_epochs;
  p.iteration = iteration;
  p.iterations = iterations;
  p.steps_total = static_cast<double>(p_.config.num_epochs * train_iterations_);
  const auto now = std::chrono::steady_clock::now();
  p.elapsed_s = std::chrono::duration<double>(now - t0_).count();
  double valid_s = valid_seconds_;
  if (valid_start_) valid_s += std::chrono::duration<double>(now - *valid_start_).count();
  if (train_run_ > 0) {
    const double train_rate = (p.elapsed_s - valid_s) / static_cast<double>(train_run_);
    // Before the first validation step, one is taken to cost a third of a training step
    // (a forward pass without the backward and the update).
    const double valid_rate =
        valid_run_ > 0 ? valid_s / static_cast<double>(valid_run_) : train_rate / 3;
    const int64_t epochs = p_.config.num_epochs;
    p.eta_s = train_rate * static_cast<double>(epochs * train_iterations_ - train_done_) +
              valid_rate * static_cast<double>(epochs * valid_iterations_ - valid_done_);
  }
  return p;
}

template <nn::Module M, class Rule>
void Learner<M, Rule>::start() {
  const auto& c = p_.config;
  if (c.num_epochs < 1) throw Error("Learner: num_epochs must be >= 1");
  if (c.grad_accumulation < 1) throw Error("Learner: grad_accumulation must be >= 1");
  if (c.log_interval < 1) throw Error("Learner: log_interval must be >= 1");
  auto& s = *p_.strategy;
  if (s.world_size() > 1) {  // every replica starts from rank 0's parameters
    p_.model = nn::map_params(p_.model, [&](const std::string&, const auto& param) {
      using T = std::decay_t<decltype(param.val())>;
      return param.with_value(T(s.broadcast(param.val().raw())));
    });
  }
  if (s.is_main() && !c.artifact_dir.empty()) {
    std::filesystem::create_directories(c.artifact_dir);
    p_.renderer = std::make_unique<ExperimentLogRenderer>(std::move(p_.renderer),
                                                          c.artifact_dir + "/experiment.log");
    if (c.file_logs) file_logger_ = std::make_unique<FileMetricLogger>(c.artifact_dir);
    if (c.tensorboard) {
      event_logger_ = std::make_unique<EventMetricLogger>(c.artifact_dir + "/tensorboard");
    }
  }
  if (p_.plateau) {
    const MetricSet& set = p_.plateau->split == Split::Train ? train_metrics_ : valid_metrics_;
    bool found = false;
    for (const auto& m : set.metrics()) found = found || m->name() == p_.plateau->metric;
    if (!found) {
      throw Error("Learner: reduce_lr_on_plateau watches '" + p_.plateau->metric + "' on " +
                  split_name(p_.plateau->split) + ", which is not among the " +
                  split_name(p_.plateau->split) + " metrics");
    }
  }
  if (c.resume_epoch) resume(*c.resume_epoch);
}

template <nn::Module M, class Rule>
void Learner<M, Rule>::step_plateau(int64_t epoch) {
  if (!p_.plateau) return;
  const MetricSeries* s = history_.find(p_.plateau->metric);
  if (s == nullptr) return;
  const auto& values = s->epochs[static_cast<int>(p_.plateau->split)];
  auto it =
      std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == epoch; });
  if (it == values.end()) return;  // no validation this epoch
  const double before = p_.plateau->rule.lr();
  p_.plateau->rule.step(it->second);
  if (p_.plateau->rule.lr() < before) {
    std::ostringstream msg;
    msg << p_.plateau->metric << " (" << split_name(p_.plateau->split)
        << ") stopped improving: learning rate x" << p_.plateau->rule.lr() / before;
    p_.renderer->message(msg.str());
  }
}

template <nn::Module M, class Rule>
void Learner<M, Rule>::resume(int64_t epoch) {
  if (!p_.checkpointer) throw Error("Learner: resuming needs a checkpointer");
  TrainingState state;
  Optim optimizer = p_.optimizer;
  M model = p_.checkpointer->restore(epoch, p_.model, optimizer, state);
  p_.model = std::move(model);
  p_.optimizer = std::move(optimizer);
  if (!state.scheduler.empty()) {
    p_.scheduler->load_state(nlohmann::json::parse(state.scheduler));
    lr_ = state.lr;
  } else {  // a checkpoint without the scheduler's position: replayed as far
    for (int64_t i = 0; i < state.optimizer_steps; ++i) lr_ = p_.scheduler->step();
  }
  if (p_.plateau && !state.plateau.empty())
    p_.plateau->rule.load_state(nlohmann::json::parse(state.plateau));
  set_random_state(state.rng_seed, state.rng_offset);
  optimizer_steps_ = state.optimizer_steps;
  global_step_ = state.global_step;
  for (const auto& [metric, split, e, value] : state.epoch_values) {
    for (const auto& set : {&train_metrics_, &valid_metrics_}) {
      for (const auto& m : set->metrics()) {
        if (m->name() == metric) history_.add_epoch(split, *m, e, value);
      }
    }
  }
  if (state.iteration > 0) restore_metric_states(state);
  start_epoch_ = state.iteration > 0 ? state.epoch : state.epoch + 1;
  skip_ = state.iteration;
  if (auto* files = dynamic_cast<FileMetricLogger*>(file_logger_.get()))
    files->resume_after(state.epoch, state.iteration);
  p_.renderer->message("resumed from the checkpoint of epoch " + std::to_string(epoch) +
                       (skip_ > 0 ? " (step " + std::to_string(skip_) + ")" : ""));
}

// A run stopped inside an epoch goes on with that epoch's training metrics where they were, so
// the epoch's logged value covers the steps before the stop as the uninterrupted run's does.
template <nn::Module M, class Rule>
void Learner<M, Rule>::restore_metric_states(const TrainingState& state) {
  for (const auto& [name, values] : state.metric_states) {
    for (const auto& m : train_metrics_.metrics()) {
      if (m->name() == name) m->restore_epoch_state(values);
    }
  }
}

template <nn::Module M, class Rule>
void Learner<M, Rule>::save_checkpoint(int64_t epoch, int64_t iteration) {
  if (!p_.checkpointer || !p_.strategy->is_main()) return;
  TrainingState state;
  state.epoch = epoch;
  state.iteration = iteration;
  state.optimizer_steps = optimizer_steps_;
  state.global_step = global_step_;
  state.lr = lr_;
  state.scheduler = p_.scheduler->state().dump();
  if (p_.plateau) state.plateau = p_.plateau->rule.state().dump();
  std::tie(state.rng_seed, state.rng_offset) = random_state();
  for (const auto& s : history_.all()) {
    for (int split = 0; split < 2; ++split) {
      for (const auto& [e, value] : s.epochs[split]) {
        state.epoch_values.emplace_back(s.name, static_cast<Split>(split), e, value);
      }
    }
  }
  if (iteration > 0) {
    for (const auto& m : train_metrics_.metrics()) {
      std::vector<double> values = m->epoch_state();
      if (!values.empty()) state.metric_states.emplace_back(m->name(), std::move(values));
    }
  }
  p_.checkpointer->save(epoch, p_.model, p_.optimizer, state);
  saved_epochs_.insert(epoch);
  if (iteration > 0) return;  // a stopped run's checkpoint is never deleted by the policy
  for (int64_t old : p_.config.checkpointing.to_delete(saved_epochs_, history_)) {
    p_.checkpointer->remove(old);
    saved_epochs_.erase(old);
  }
}

template <nn::Module M, class Rule>
template <class Loader>
bool Learner<M, Rule>::train_epoch(Loader& loader, int64_t epoch, int64_t skip) {
  detail::start_loader_epoch(loader, epoch);
  auto it = loader.iter();
  const int64_t iterations = train_iterations_;
  const Device device = p_.strategy->device();
  int64_t iteration = 0;
  for (; iteration < skip && it->next(); ++iteration) {
  }
  train_done_ += iteration;
  optim::GradientsAccumulator accumulator;
  int64_t last_read = iteration;
  auto read = [&] {
    const double x = static_cast<double>(global_step_);
    train_metrics_.read(epoch, iteration, x, history_, loggers());
    p_.renderer->render(history_, progress(Split::Train, epoch, iteration, iterations), false);
    last_read = iteration;
  };
  while (auto batch = it->next()) {
    auto output = p_.model.train_step(*batch);
    ++iteration, ++global_step_, ++train_done_, ++train_run_;
    accumulator.accumulate(output.grads);
    if (accumulator.count() == p_.config.grad_accumulation || iteration == iterations) {
      lr_ = p_.scheduler->step() * plateau_scale();
      p_.model =
          p_.optimizer.step(lr_, p_.model, p_.strategy->sync(accumulator.grads(), param_order()));
      ++optimizer_steps_;
    }
    MetricMetadata meta{epoch, p_.config.num_epochs, iteration, iterations, global_step_, lr_};
    train_metrics_.update(output.item.metric_input(), meta);
    sync(device);  // one step per flush: the JIT replays a repeated step's plan
    p_.renderer->progress(progress(Split::Train, epoch, iteration, iterations));
    if (iteration % p_.config.log_interval == 0) read();
    if (accumulator.count() == 0 && iteration < iterations && stop_requested()) {
      if (last_read != iteration) read();
      save_checkpoint(epoch, iteration);
      p_.renderer->message("stopped at epoch " + std::to_string(epoch) + " step " +
                           std::to_string(iteration) + "; checkpoint saved: resume with " +
                           "checkpoint(" + std::to_string(epoch) + ")");
      return false;
    }
  }
  if (last_read != iteration) read();
  train_metrics_.end_epoch(epoch, history_, loggers());
  p_.renderer->render(history_, progress(Split::Train, epoch, iteration, iterations), true);
  return true;
}

template <nn::Module M, class Rule>
template <class Loader>
void Learner<M, Rule>::valid_epoch(Loader& loader, int64_t epoch) {
  NoGradGuard no_grad;
  valid_start_ = std::chrono::steady_clock::now();
  const M model = p_.model.valid();
  detail::start_loader_epoch(loader, epoch);
  auto it = loader.iter();
  const int64_t iterations = valid_iterations_;
  const Device device = p_.strategy->device();
  int64_t iteration = 0, last_read = 0;
  // Validation reads sit along the epoch they belong to on the training-step axis.
  auto read = [&] {
    const double x =
        static_cast<double>(epoch - 1 +
                            static_cast<double>(iteration) / std::max<int64_t>(1, iterations)) *
        static_cast<double>(train_iterations_);
    valid_metrics_.read(epoch, iteration, x, history_, loggers());
    p_.renderer->render(history_, progress(Split::Valid, epoch, iteration, iterations), false);
    last_read = iteration;
  };
  while (auto batch = it->next()) {
    auto output = model.valid_step(*batch);
    ++iteration, ++valid_done_, ++valid_run_;
    MetricMetadata meta{epoch, p_.config.num_epochs, iteration, iterations, global_step_, lr_};
    valid_metrics_.update(output.metric_input(), meta);
    sync(device);
    p_.renderer->progress(progress(Split::Valid, epoch, iteration, iterations));
    if (iteration % p_.config.log_interval == 0) read();
  }
  if (last_read != iteration) read();
  valid_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *valid_start_).count();
  valid_start_.reset();
  valid_metrics_.end_epoch(epoch, history_, loggers());
  p_.renderer->render(history_, progress(Split::Valid, epoch, iteration, iterations), true);
}

template <nn::Module M, class Rule>
template <class TrainLoader, class ValidLoader>
M Learner<M, Rule>::fit(std::shared_ptr<TrainLoader> train, std::shared_ptr<ValidLoader> valid) {
  if (!train) throw Error("Learner::fit: no training loader");
  t0_ = std::chrono::steady_clock::now();
  train_iterations_ = detail::num_batches(*train);
  valid_iterations_ = valid ? detail::num_batches(*valid) : 0;
  start();
  // Epochs before a resumed one are done (train_epoch adds the skipped steps of its epoch).
  train_done_ = (start_epoch_ - 1) * train_iterations_;
  valid_done_ = (start_epoch_ - 1) * valid_iterations_;
  for (int64_t epoch = start_epoch_; epoch <= p_.config.num_epochs; ++epoch) {
    const int64_t skip = epoch == start_epoch_ ? skip_ : 0;
    if (!train_epoch(*train, epoch, skip)) {
      result_.interrupted = true;
      break;
    }
    if (valid) valid_epoch(*valid, epoch);
    step_plateau(epoch);
    result_.epochs_completed = epoch;
    save_checkpoint(epoch, 0);
    if (p_.early_stopping && p_.early_stopping->should_stop(epoch, history_)) {
      p_.renderer->message(p_.early_stopping->reason());
      result_.early_stopped = true;
      break;
    }
    if (epoch < p_.config.num_epochs && stop_requested()) {
      p_.renderer->message("stopped after epoch " + std::to_string(epoch) +
                           "; resume with checkpoint(" + std::to_string(epoch) + ")");
      result_.interrupted = true;
      break;
    }
  }
  finish();
  return p_.model;
}

template <nn::Module M, class Rule>
void Learner<M, Rule>::finish() {
  p_.renderer->finish();
  p_.interrupter.remove_sigint_handler();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  result_.summary = format_summary(history_, result_.epochs_completed, seconds);
  if (p_.config.summary && p_.strategy->is_main()) std::printf("%s", result_.summary.c_str());
  if (p_.config.report && p_.strategy->is_main() && !p_.config.artifact_dir.empty()) {
    try {
      result_.report_path =
          write_report(p_.config.artifact_dir + "/report", history_, result_.summary);
    } catch (const Error& e) {
      std::fprintf(stderr, "report: %s\n", e.what());
    }
  }
}

}  // namespace ember::train
