#include "optim/scheduler/cosine_annealing.h"

#include <cmath>
#include <numbers>
#include <string>

#include "ir/error.h"
#include "optim/scheduler/check.h"

namespace ember::optim {

CosineAnnealingLrScheduler::CosineAnnealingLrScheduler(double initial_lr, int64_t num_iters,
                                                       double min_lr)
    : initial_(initial_lr), num_iters_(num_iters), min_(min_lr) {
  detail::check_lr("CosineAnnealingLrScheduler", "initial_lr", initial_lr);
  detail::check_lr("CosineAnnealingLrScheduler", "min_lr", min_lr);
  detail::check_iters("CosineAnnealingLrScheduler", "num_iters", num_iters);
  if (min_lr > initial_lr) {
    throw Error("CosineAnnealingLrScheduler: min_lr " + std::to_string(min_lr) +
                " is above initial_lr " + std::to_string(initial_lr));
  }
}

double CosineAnnealingLrScheduler::step() {
  const int64_t c = iter_++ % (num_iters_ + 1);
  const double phase = std::numbers::pi * static_cast<double>(c) / static_cast<double>(num_iters_);
  return min_ + 0.5 * (initial_ - min_) * (1 + std::cos(phase));
}

nlohmann::json CosineAnnealingLrScheduler::state() const { return {{"iter", iter_}}; }

void CosineAnnealingLrScheduler::load_state(const nlohmann::json& state) {
  iter_ = detail::state_count("CosineAnnealingLrScheduler", state, "iter");
}

}  // namespace ember::optim
