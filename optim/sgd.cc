#include "optim/sgd.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

Sgd SgdConfig::init() const {
  detail::check_non_negative("SgdConfig", "weight_decay", weight_decay);
  if (momentum) {
    detail::check_non_negative("SgdConfig", "momentum", momentum->momentum);
    nn::detail::check_range("SgdConfig", "dampening", momentum->dampening, 0, 1);
  }
  if (grad_clipping) grad_clipping->check();
  return Sgd(SgdRule(weight_decay, momentum), grad_clipping);
}

}  // namespace ember::optim
