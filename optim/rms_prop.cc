#include "optim/rms_prop.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

RmsProp RmsPropConfig::init() const {
  nn::detail::check_range("RmsPropConfig", "alpha", alpha, 0, 1);
  nn::detail::check_positive("RmsPropConfig", "epsilon", epsilon);
  detail::check_non_negative("RmsPropConfig", "momentum", momentum);
  detail::check_non_negative("RmsPropConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return RmsProp(RmsPropRule({alpha, epsilon, momentum, centered, weight_decay}), grad_clipping);
}

}  // namespace ember::optim
