#include "nn/layer_norm.h"

namespace ember::nn {

LayerNorm LayerNormConfig::init(const Device& device) const {
  detail::check_positive("LayerNormConfig", "d_model", static_cast<double>(d_model));
  detail::check_positive("LayerNormConfig", "epsilon", epsilon);
  LayerNorm l;
  l.gamma = Initializer::ones().init_param<1>(Shape{d_model}, device);
  l.beta = Initializer::zeros().init_param<1>(Shape{d_model}, device);
  l.epsilon = epsilon;
  return l;
}

}  // namespace ember::nn
