#pragma once
// SwiGlu: silu(x W_inner) * (x W_outer), two Linears without bias by default (Burn's nn::SwiGlu,
// after Shazeer, 2020).
#include "frontend/activation.h"
#include "nn/linear.h"

namespace ember::nn {

struct SwiGlu {
  Linear linear_inner;
  Linear linear_outer;
  // [..., d_input] -> [..., d_output]
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::silu(linear_inner.forward(x)) * linear_outer.forward(x);
  }
  EMBER_MODULE(SwiGlu, linear_inner, linear_outer)
};

struct SwiGluConfig {
  int64_t d_input = 0;
  int64_t d_output = 0;
  bool bias = false;
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);
  SwiGluConfig(int64_t d_input, int64_t d_output) : d_input(d_input), d_output(d_output) {}
  SwiGlu init(const Device& device = Device::default_device()) const {
    LinearConfig c = LinearConfig(d_input, d_output).with_bias(bias).with_initializer(initializer);
    return SwiGlu{c.init(device), c.init(device)};
  }
  EMBER_CONFIG(SwiGluConfig, d_input, d_output, bias, initializer)
};

}  // namespace ember::nn
