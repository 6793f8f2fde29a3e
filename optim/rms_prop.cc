#include "optim/rms_prop.h"

#include "nn/checks.h"

namespace ember::optim {

RmsProp RmsPropConfig::init() const {
  nn::detail::check_range("RmsPropConfig", "alpha", alpha, 0, 1);
  nn::detail::check_positive("RmsPropConfig", "epsilon", epsilon);
  nn::detail::check_range("RmsPropConfig", "momentum", momentum, 0, 1e300);
  if (weight_decay) {
    nn::detail::check_range("RmsPropConfig", "weight_decay", *weight_decay, 0, 1e300);
  }
  if (grad_clipping) grad_clipping->check();
  return RmsProp(RmsPropRule({alpha, epsilon, momentum, centered, weight_decay}), grad_clipping);
}

}  // namespace ember::optim
