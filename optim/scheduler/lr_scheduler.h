#pragma once
// Learning-rate schedulers (Burn's LrScheduler): each step() advances one iteration and returns
// the learning rate for it; the first step() returns the initial rate. Pass the result to an
// optimizer's step(lr, ...).
#include <memory>
#include <nlohmann/json.hpp>

#include "optim/scheduler/state.h"

namespace ember::optim {

class LrScheduler {
 public:
  virtual ~LrScheduler() = default;
  virtual double step() = 0;
  // An independent copy in the same position (for wrappers and snapshots).
  virtual std::unique_ptr<LrScheduler> clone() const = 0;
  // Where the schedule is, as a small JSON object (checkpoints: optim/record.h saves it); a
  // scheduler made with the same configuration and given it by load_state() continues from there.
  // load_state() throws ember::Error naming the scheduler for a state of another shape.
  virtual nlohmann::json state() const = 0;
  virtual void load_state(const nlohmann::json& state) = 0;
};

}  // namespace ember::optim
