#include "optim/ada_grad.h"

#include "nn/checks.h"

namespace ember::optim {

AdaGrad AdaGradConfig::init() const {
  nn::detail::check_range("AdaGradConfig", "lr_decay", lr_decay, 0, 1e300);
  nn::detail::check_positive("AdaGradConfig", "epsilon", epsilon);
  if (weight_decay) {
    nn::detail::check_range("AdaGradConfig", "weight_decay", *weight_decay, 0, 1e300);
  }
  if (grad_clipping) grad_clipping->check();
  return AdaGrad(AdaGradRule(lr_decay, epsilon, weight_decay), grad_clipping);
}

}  // namespace ember::optim
