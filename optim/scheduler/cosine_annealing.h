#pragma once
// Cosine annealing from initial_lr down to min_lr over num_iters steps (Burn's
// CosineAnnealingLrScheduler): step k returns
//   min_lr + (initial_lr - min_lr) * (1 + cos(pi * c / num_iters)) / 2,  c = k mod (num_iters + 1)
// so step num_iters reaches min_lr and the next one restarts at initial_lr (warm restarts of a
// fixed period, as Burn's).
#include <cstdint>
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class CosineAnnealingLrScheduler : public LrScheduler {
 public:
  // Throws ember::Error for negative rates, min_lr > initial_lr or num_iters <= 0.
  CosineAnnealingLrScheduler(double initial_lr, int64_t num_iters, double min_lr = 0);
  double step() override;
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<CosineAnnealingLrScheduler>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double initial_;
  int64_t num_iters_;
  double min_;
  int64_t iter_ = 0;
};

}  // namespace ember::optim
