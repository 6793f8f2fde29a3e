#include "optim/scheduler/noam.h"

#include <algorithm>
#include <cmath>

#include "optim/scheduler/check.h"

namespace ember::optim {

NoamLrScheduler::NoamLrScheduler(double init_lr, int64_t warmup_steps, int64_t model_size)
    : init_lr_(init_lr), warmup_steps_(warmup_steps), model_size_(model_size) {
  detail::check_lr("NoamLrScheduler", "init_lr", init_lr);
  detail::check_iters("NoamLrScheduler", "warmup_steps", warmup_steps);
  detail::check_iters("NoamLrScheduler", "model_size", model_size);
}

double NoamLrScheduler::step() {
  const double s = static_cast<double>(++step_);
  const double rise = s * std::pow(static_cast<double>(warmup_steps_), -1.5);
  return init_lr_ / std::sqrt(static_cast<double>(model_size_)) * std::min(1 / std::sqrt(s), rise);
}

nlohmann::json NoamLrScheduler::state() const { return {{"step", step_}}; }

void NoamLrScheduler::load_state(const nlohmann::json& state) {
  step_ = detail::state_count("NoamLrScheduler", state, "step");
}

}  // namespace ember::optim
