#include "nn/instance_norm.h"

#include "nn/initializer.h"

namespace ember::nn {

InstanceNorm InstanceNormConfig::init(const Device& device) const {
  detail::check_positive("InstanceNormConfig", "num_channels", static_cast<double>(num_channels));
  detail::check_positive("InstanceNormConfig", "epsilon", epsilon);
  InstanceNorm n;
  if (affine) {
    n.gamma = Initializer::ones().init_param<1>(Shape{num_channels}, device);
    n.beta = Initializer::zeros().init_param<1>(Shape{num_channels}, device);
  }
  n.num_channels = num_channels;
  n.epsilon = epsilon;
  return n;
}

}  // namespace ember::nn
