#pragma once
// The Transformer paper's schedule (Burn's NoamLrScheduler): with step s from 1,
//   init_lr * model_size^-0.5 * min(s^-0.5, s * warmup_steps^-1.5)
// a linear rise for warmup_steps steps, then a decay as 1 / sqrt(s).
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class NoamLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for a negative rate or a non-positive warmup_steps or model_size.
  NoamLrScheduler(double init_lr, int64_t warmup_steps, int64_t model_size);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<NoamLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double init_lr_;
  int64_t warmup_steps_, model_size_;
  int64_t step_ = 0;
};

}  // namespace ember::optim
