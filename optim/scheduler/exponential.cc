#include "optim/scheduler/exponential.h"

#include <cmath>
#include <string>

#include "ir/error.h"
#include "optim/scheduler/check.h"

namespace ember::optim {

ExponentialLrScheduler::ExponentialLrScheduler(double initial_lr, double gamma)
    : initial_(initial_lr), gamma_(gamma) {
  detail::check_lr("ExponentialLrScheduler", "initial_lr", initial_lr);
  if (!(gamma > 0 && gamma <= 1)) {
    throw Error("ExponentialLrScheduler: gamma must be in (0, 1], got " + std::to_string(gamma));
  }
}

double ExponentialLrScheduler::step() {
  // The power, not a running product, so step 1000 carries no accumulated rounding.
  return initial_ * std::pow(gamma_, static_cast<double>(iter_++));
}

nlohmann::json ExponentialLrScheduler::state() const { return {{"iter", iter_}}; }

void ExponentialLrScheduler::load_state(const nlohmann::json& state) {
  iter_ = detail::state_count("ExponentialLrScheduler", state, "iter");
}

}  // namespace ember::optim
