#include "nn/group_norm.h"

#include "nn/initializer.h"

namespace ember::nn {

GroupNorm GroupNormConfig::init(const Device& device) const {
  detail::check_positive("GroupNormConfig", "num_groups", static_cast<double>(num_groups));
  detail::check_positive("GroupNormConfig", "num_channels", static_cast<double>(num_channels));
  detail::check_positive("GroupNormConfig", "epsilon", epsilon);
  if (num_channels % num_groups != 0) {
    detail::throw_layer_error("GroupNormConfig", "num_channels (" + std::to_string(num_channels) +
                                                     ") must be divisible by num_groups (" +
                                                     std::to_string(num_groups) + ")");
  }
  GroupNorm g;
  if (affine) {
    g.gamma = Initializer::ones().init_param<1>(Shape{num_channels}, device);
    g.beta = Initializer::zeros().init_param<1>(Shape{num_channels}, device);
  }
  g.num_groups = num_groups;
  g.num_channels = num_channels;
  g.epsilon = epsilon;
  return g;
}

}  // namespace ember::nn
