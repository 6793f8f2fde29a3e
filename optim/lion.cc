#include "optim/lion.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

Lion LionConfig::init() const {
  nn::detail::check_range("LionConfig", "beta_1", beta_1, 0, 1);
  nn::detail::check_range("LionConfig", "beta_2", beta_2, 0, 1);
  detail::check_non_negative("LionConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return Lion(LionRule(beta_1, beta_2, weight_decay), grad_clipping);
}

}  // namespace ember::optim
