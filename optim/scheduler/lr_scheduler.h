#pragma once
// Learning-rate schedulers (Burn's LrScheduler): each step() advances one iteration and returns
// the learning rate for it; the first step() returns the initial rate. Pass the result to an
// optimizer's step(lr, ...).
#include <memory>

namespace ember::optim {

class LrScheduler {
 public:
  virtual ~LrScheduler() = default;
  virtual double step() = 0;
  // An independent copy in the same position (for wrappers and snapshots).
  virtual std::unique_ptr<LrScheduler> clone() const = 0;
};

}  // namespace ember::optim
