#pragma once
// Linear: y = x W + b over the last dim (Burn's nn::Linear; W is [d_input, d_output]).
#include <cmath>
#include <optional>

#include "nn/checks.h"
#include "nn/config.h"
#include "nn/initializer.h"
#include "nn/module.h"

namespace ember::nn {

class Linear {
 public:
  Param<Tensor<2>> weight;               // [d_input, d_output]
  std::optional<Param<Tensor<1>>> bias;  // [d_output]

  int64_t d_input() const { return weight.shape()[0]; }
  int64_t d_output() const { return weight.shape()[1]; }

  // [..., d_input] -> [..., d_output]
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    detail::check_dim_size("Linear", x.raw(), -1, d_input(), "input features");
    if constexpr (D == 1) {
      return forward(x.template unsqueeze<2>()).template reshape<1>(Shape{d_output()});
    } else if constexpr (D > 2) {
      // One 2-D matmul over the flattened leading dims.
      Shape out = x.shape();
      out[D - 1] = d_output();
      return forward(x.template flatten<2>(0, D - 2)).template reshape<D>(out);
    } else {
      Tensor<2> y = x.matmul(weight.val());
      return bias ? y + bias->val().template unsqueeze<2>() : y;
    }
  }

  void display_attributes(Attributes& a) const {
    a.add("d_input", d_input()).add("d_output", d_output()).add("bias", bias.has_value());
  }
  EMBER_MODULE(Linear, weight, bias)
};

struct LinearConfig {
  int64_t d_input = 0;
  int64_t d_output = 0;
  bool bias = true;
  // Burn's default: uniform in +-1/sqrt(d_input) (gain 1/sqrt(3) with fan_in), bias included.
  Initializer initializer = Initializer::kaiming_uniform(1.0 / std::sqrt(3.0), false);

  LinearConfig(int64_t d_input, int64_t d_output) : d_input(d_input), d_output(d_output) {}
  Linear init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(LinearConfig, d_input, d_output, bias, initializer)
};

}  // namespace ember::nn
