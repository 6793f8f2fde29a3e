#pragma once
// The same learning rate at every step (Burn's ConstantLr, what a plain double gives).
#include <memory>

#include "optim/scheduler/lr_scheduler.h"

namespace ember::optim {

class ConstantLr : public LrScheduler {
 public:
  // Throws ember::Error for a negative or non-finite rate.
  explicit ConstantLr(double lr);
  double step() override { return lr_; }
  std::unique_ptr<LrScheduler> clone() const override {
    return std::make_unique<ConstantLr>(*this);
  }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;

 private:
  double lr_;
};

}  // namespace ember::optim
