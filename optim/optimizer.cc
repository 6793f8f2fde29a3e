#include "optim/optimizer.h"

#include <cmath>
#include <string>

namespace ember::optim::detail {

void check_step(const char* optimizer, double lr, const GradientsParams& grads,
                const std::unordered_set<ParamId>& module_ids) {
  if (!(lr >= 0) || !std::isfinite(lr)) {
    throw Error(std::string(optimizer) + ": the learning rate must be finite and >= 0, got " +
                std::to_string(lr));
  }
  // Checked before anything is recorded, so a failed step leaves the optimizer as it was.
  for (ParamId id : grads.ids()) {
    if (module_ids.count(id) == 0) {
      throw Error(std::string(optimizer) + ": gradients for parameter " + id.to_string() +
                  ", which the module does not have (gradients of another model?)");
    }
  }
}

}  // namespace ember::optim::detail
