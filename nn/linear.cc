#include "nn/linear.h"

namespace ember::nn {

Linear LinearConfig::init(const Device& device) const {
  detail::check_positive("LinearConfig", "d_input", static_cast<double>(d_input));
  detail::check_positive("LinearConfig", "d_output", static_cast<double>(d_output));
  Linear l;
  l.weight = initializer.init_param<2>(Shape{d_input, d_output}, device, d_input, d_output);
  // As Burn: the bias is drawn by the same initializer with the weight's fans.
  if (bias) l.bias = initializer.init_param<1>(Shape{d_output}, device, d_input, d_output);
  return l;
}

}  // namespace ember::nn
