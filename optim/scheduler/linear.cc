#include "optim/scheduler/linear.h"

#include <algorithm>

#include "optim/scheduler/check.h"

namespace ember::optim {

LinearLrScheduler::LinearLrScheduler(double initial_lr, double final_lr, int64_t num_iters)
    : initial_(initial_lr), final_(final_lr), num_iters_(num_iters) {
  detail::check_lr("LinearLrScheduler", "initial_lr", initial_lr);
  detail::check_lr("LinearLrScheduler", "final_lr", final_lr);
  detail::check_iters("LinearLrScheduler", "num_iters", num_iters);
}

double LinearLrScheduler::step() {
  const int64_t k = std::min(iter_, num_iters_);
  ++iter_;
  if (k == num_iters_) return final_;  // exactly, not up to rounding
  return initial_ + (final_ - initial_) * static_cast<double>(k) / static_cast<double>(num_iters_);
}

nlohmann::json LinearLrScheduler::state() const { return {{"iter", iter_}}; }

void LinearLrScheduler::load_state(const nlohmann::json& state) {
  iter_ = detail::state_count("LinearLrScheduler", state, "iter");
}

}  // namespace ember::optim
