#pragma once
// initial_lr * gamma^k at step k from 0 (Burn's ExponentialLrScheduler).
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class ExponentialLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for a negative rate or gamma outside (0, 1].
  ExponentialLrScheduler(double initial_lr, double gamma);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<ExponentialLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double initial_, gamma_;
  int64_t iter_ = 0;
};

}  // namespace ember::optim
