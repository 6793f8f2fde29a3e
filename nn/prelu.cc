#include "nn/prelu.h"

#include "nn/initializer.h"

namespace ember::nn {

PRelu PReluConfig::init(const Device& device) const {
  detail::check_positive("PReluConfig", "num_parameters", static_cast<double>(num_parameters));
  PRelu p;
  p.alpha = Initializer::constant(alpha).init_param<1>(Shape{num_parameters}, device);
  return p;
}

}  // namespace ember::nn
