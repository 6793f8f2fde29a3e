#include "optim/ada_grad.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

AdaGrad AdaGradConfig::init() const {
  detail::check_non_negative("AdaGradConfig", "lr_decay", lr_decay);
  nn::detail::check_positive("AdaGradConfig", "epsilon", epsilon);
  detail::check_non_negative("AdaGradConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return AdaGrad(AdaGradRule(lr_decay, epsilon, weight_decay), grad_clipping);
}

}  // namespace ember::optim
