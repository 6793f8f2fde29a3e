#include "optim/sgd.h"

#include "nn/checks.h"

namespace ember::optim {

Sgd SgdConfig::init() const {
  if (weight_decay) nn::detail::check_range("SgdConfig", "weight_decay", *weight_decay, 0, 1e300);
  if (momentum) {
    nn::detail::check_range("SgdConfig", "momentum", momentum->momentum, 0, 1e300);
    nn::detail::check_range("SgdConfig", "dampening", momentum->dampening, 0, 1);
  }
  if (grad_clipping) grad_clipping->check();
  return Sgd(SgdRule(weight_decay, momentum), grad_clipping);
}

}  // namespace ember::optim
