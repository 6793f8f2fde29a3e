#include "optim/scheduler/reduce_on_plateau.h"

#include <algorithm>
#include <string>

#include "ir/error.h"
#include "optim/scheduler/check.h"
#include "optim/scheduler/state.h"

namespace ember::optim {

ReduceLrOnPlateau::ReduceLrOnPlateau(double initial_lr, Options options)
    : lr_(initial_lr),
      o_(options),
      best_(options.mode == Mode::min ? std::numeric_limits<double>::infinity()
                                      : -std::numeric_limits<double>::infinity()) {
  detail::check_lr("ReduceLrOnPlateau", "initial_lr", initial_lr);
  detail::check_lr("ReduceLrOnPlateau", "min_lr", o_.min_lr);
  if (!(o_.factor >= 0 && o_.factor < 1)) {
    throw Error("ReduceLrOnPlateau: factor must be in [0, 1), got " + std::to_string(o_.factor));
  }
  if (o_.patience < 0 || o_.cooldown < 0 || !(o_.threshold >= 0)) {
    throw Error("ReduceLrOnPlateau: patience, cooldown and threshold must be >= 0");
  }
  if (o_.min_lr > initial_lr) {
    throw Error("ReduceLrOnPlateau: min_lr " + std::to_string(o_.min_lr) + " is above initial_lr " +
                std::to_string(initial_lr));
  }
}

bool ReduceLrOnPlateau::improves(double metric) const {
  return o_.mode == Mode::min ? metric < best_ * (1 - o_.threshold)
                              : metric > best_ * (1 + o_.threshold);
}

double ReduceLrOnPlateau::step(double metric) {
  if (improves(metric)) {
    best_ = metric;
    bad_steps_ = 0;
  } else {
    ++bad_steps_;
  }
  if (cooldown_left_ > 0) {  // stagnation right after a cut is the cut settling in
    --cooldown_left_;
    bad_steps_ = 0;
  }
  if (bad_steps_ > o_.patience) {
    lr_ = std::max(lr_ * o_.factor, o_.min_lr);
    cooldown_left_ = o_.cooldown;
    bad_steps_ = 0;
  }
  return lr_;
}

nlohmann::json ReduceLrOnPlateau::state() const {
  return {{"lr", detail::state_double(lr_)},
          {"best", detail::state_double(best_)},
          {"bad_steps", bad_steps_},
          {"cooldown_left", cooldown_left_}};
}

void ReduceLrOnPlateau::load_state(const nlohmann::json& state) {
  const char* name = "ReduceLrOnPlateau";
  const double lr = detail::state_double(name, state, "lr");
  const double best = detail::state_double(name, state, "best");
  const int64_t bad = detail::state_count(name, state, "bad_steps");
  const int64_t cooldown = detail::state_count(name, state, "cooldown_left");
  lr_ = lr;
  best_ = best;
  bad_steps_ = bad;
  cooldown_left_ = cooldown;
}

}  // namespace ember::optim
