#pragma once
// Linear interpolation from initial_lr to final_lr over num_iters steps, then final_lr (Burn's
// LinearLrScheduler): step k (from 0) returns initial + (final - initial) * min(k, n) / n.
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class LinearLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for a negative rate or num_iters <= 0.
  LinearLrScheduler(double initial_lr, double final_lr, int64_t num_iters);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<LinearLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double initial_, final_;
  int64_t num_iters_, iter_ = 0;
};

}  // namespace ember::optim
