#pragma once
// Checkpoints (Burn's Checkpointer and CheckpointingStrategy): the model, the optimizer and the
// training state (epoch, steps, scheduler position, random state, the metrics' epoch values)
// saved after each epoch and when a run is stopped; a policy keeps the last N and the best
// epoch by a metric and deletes the others.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "train/history.h"

namespace ember::train {

struct TrainingState {
  int64_t epoch = 0;            // the epoch the checkpoint belongs to
  int64_t iteration = 0;        // steps of `epoch` done when stopped inside it; 0: epoch complete
  int64_t optimizer_steps = 0;  // optimizer steps since the start
  int64_t global_step = 0;      // training steps since the start
  double lr = 0;                // the rate of the last optimizer step
  // Where the scheduler and the plateau rule are (their state(), JSON text), restored on resume.
  // Empty in checkpoints written before they were saved: the scheduler is then replayed
  // optimizer_steps far.
  std::string scheduler, plateau;
  uint64_t rng_seed = 0, rng_offset = 0;
  // Every epoch value measured so far: (metric, split, epoch, value).
  std::vector<std::tuple<std::string, Split, int64_t, double>> epoch_values;
  // For a checkpoint inside an epoch: each training metric's epoch_state() by name.
  std::vector<std::pair<std::string, std::vector<double>>> metric_states;

  std::string to_json() const;
  // Throws ember::Error naming `source` when the text is not a training state.
  static TrainingState from_json(const std::string& text, const std::string& source);
};

// The random state of the frontend's generator, and setting it back (dropout masks after a
// resume are those of the uninterrupted run).
std::pair<uint64_t, uint64_t> random_state();
void set_random_state(uint64_t seed, uint64_t offset);

template <class M, class O>
class Checkpointer {
 public:
  virtual ~Checkpointer() = default;
  virtual void save(int64_t epoch, const M& model, const O& optimizer,
                    const TrainingState& state) = 0;
  // The saved model; `optimizer` and `state` are replaced only when everything loaded. Throws
  // ember::Error naming the file when a checkpoint is missing or corrupt.
  virtual M restore(int64_t epoch, const M& model, O& optimizer, TrainingState& state) = 0;
  virtual void remove(int64_t epoch) = 0;
};

// Checkpoints kept in memory (modules and optimizers are values): tests, and runs that only
// need the best model back.
template <class M, class O>
class MemoryCheckpointer : public Checkpointer<M, O> {
 public:
  void save(int64_t epoch, const M& model, const O& optimizer,
            const TrainingState& state) override {
    saved_.insert_or_assign(epoch, Saved{model, optimizer, state});
  }
  M restore(int64_t epoch, const M&, O& optimizer, TrainingState& state) override {
    auto it = saved_.find(epoch);
    if (it == saved_.end()) {
      throw Error("MemoryCheckpointer: no checkpoint of epoch " + std::to_string(epoch));
    }
    optimizer = it->second.optimizer;
    state = it->second.state;
    return it->second.model;
  }
  void remove(int64_t epoch) override { saved_.erase(epoch); }
  std::set<int64_t> epochs() const {
    std::set<int64_t> out;
    for (const auto& [e, s] : saved_) out.insert(e);
    return out;
  }

 private:
  struct Saved {
    M model;
    O optimizer;
    TrainingState state;
  };
  std::map<int64_t, Saved> saved_;
};

// Which checkpoints to keep (Burn's KeepLastNCheckpoints composed with
// MetricCheckpointingStrategy): the last `keep_last` epochs, and the best epoch of `best_metric`
// on `best_split` when one is named.
struct CheckpointPolicy {
  int64_t keep_last = 2;
  std::optional<std::string> best_metric;
  Split best_split = Split::Valid;

  // The epochs among `saved` to delete now.
  std::vector<int64_t> to_delete(const std::set<int64_t>& saved,
                                 const MetricHistory& history) const;
};

}  // namespace ember::train
