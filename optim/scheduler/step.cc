#include "optim/scheduler/step.h"

#include <cmath>
#include <string>

#include "ir/error.h"
#include "optim/scheduler/check.h"

namespace ember::optim {

StepLrScheduler::StepLrScheduler(double initial_lr, int64_t step_size, double gamma)
    : initial_(initial_lr), step_size_(step_size), gamma_(gamma) {
  detail::check_lr("StepLrScheduler", "initial_lr", initial_lr);
  detail::check_iters("StepLrScheduler", "step_size", step_size);
  if (!(gamma >= 0) || !std::isfinite(gamma)) {
    throw Error("StepLrScheduler: gamma must be finite and >= 0, got " + std::to_string(gamma));
  }
}

double StepLrScheduler::step() {
  return initial_ * std::pow(gamma_, static_cast<double>(iter_++ / step_size_));
}

nlohmann::json StepLrScheduler::state() const { return {{"iter", iter_}}; }

void StepLrScheduler::load_state(const nlohmann::json& state) {
  iter_ = detail::state_count("StepLrScheduler", state, "iter");
}

}  // namespace ember::optim
