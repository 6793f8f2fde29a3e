#include "optim/grad_clipping.h"

#include <string>

namespace ember::optim {

void GradientClippingConfig::check() const {
  if (!(threshold > 0)) {
    throw Error("GradientClipping: threshold must be positive, got " + std::to_string(threshold));
  }
}

}  // namespace ember::optim
