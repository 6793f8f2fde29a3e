#pragma once
// A linear warm-up in front of any scheduler: for the first warmup_iters steps the wrapped
// scheduler's rate is scaled by (k + 1) / warmup_iters (k from 0), after that it is passed
// through. The wrapped scheduler advances from the first step, so the warm-up multiplies its
// schedule rather than delaying it (a cosine decay still ends at the step it was set for).
// The first rate is never 0: a step with rate 0 would waste a batch.
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class WarmUpLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for warmup_iters <= 0 or a null scheduler.
  WarmUpLrScheduler(std::unique_ptr<LrScheduler> inner, int64_t warmup_iters);
  WarmUpLrScheduler(const WarmUpLrScheduler& o);
  WarmUpLrScheduler& operator=(const WarmUpLrScheduler& o);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<WarmUpLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  std::unique_ptr<LrScheduler> inner_;
  int64_t warmup_iters_;
  int64_t iter_ = 0;
};

}  // namespace ember::optim
