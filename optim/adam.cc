#include "optim/adam.h"

#include <string>

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

namespace detail {

void check_adam_hyper(const char* config, double beta_1, double beta_2, double epsilon) {
  for (auto [name, beta] : {std::pair{"beta_1", beta_1}, std::pair{"beta_2", beta_2}}) {
    if (!(beta >= 0 && beta < 1)) {
      throw Error(std::string(config) + ": " + name + " must be in [0, 1), got " +
                  std::to_string(beta));
    }
  }
  nn::detail::check_positive(config, "epsilon", epsilon);
}

}  // namespace detail

Adam AdamConfig::init() const {
  detail::check_adam_hyper("AdamConfig", beta_1, beta_2, epsilon);
  detail::check_non_negative("AdamConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return Adam(AdamRule({beta_1, beta_2, epsilon, amsgrad}, weight_decay), grad_clipping);
}

}  // namespace ember::optim
