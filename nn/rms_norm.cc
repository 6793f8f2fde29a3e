#include "nn/rms_norm.h"

#include "nn/initializer.h"

namespace ember::nn {

RmsNorm RmsNormConfig::init(const Device& device) const {
  detail::check_positive("RmsNormConfig", "d_model", static_cast<double>(d_model));
  detail::check_positive("RmsNormConfig", "epsilon", epsilon);
  RmsNorm r;
  r.gamma = Initializer::ones().init_param<1>(Shape{d_model}, device);
  r.epsilon = epsilon;
  return r;
}

}  // namespace ember::nn
