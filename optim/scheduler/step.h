#pragma once
// initial_lr * gamma^floor(k / step_size) at step k from 0: the rate drops by gamma every
// step_size steps (Burn's StepLrScheduler, PyTorch's StepLR).
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class StepLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for a negative rate, step_size <= 0 or a negative gamma.
  StepLrScheduler(double initial_lr, int64_t step_size, double gamma);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<StepLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double initial_;
  int64_t step_size_;
  double gamma_;
  int64_t iter_ = 0;
};

}  // namespace ember::optim
