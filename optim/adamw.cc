#include "optim/adamw.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

AdamW AdamWConfig::init() const {
  detail::check_adam_hyper("AdamWConfig", beta_1, beta_2, epsilon);
  detail::check_non_negative("AdamWConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return AdamW(AdamWRule({beta_1, beta_2, epsilon, amsgrad}, weight_decay), grad_clipping);
}

}  // namespace ember::optim
