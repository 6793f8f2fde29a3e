#pragma once
// RmsNorm: x / sqrt(mean(x^2) + epsilon) * gamma over the last dim (Burn's nn::RmsNorm, after
// Zhang and Sennrich, 2019).
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"

namespace ember::nn {

class RmsNorm {
 public:
  Param<Tensor<1>> gamma;  // [d_model], ones
  double epsilon = 1e-5;

  int64_t d_model() const { return gamma.shape()[0]; }
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    detail::check_dim_size("RmsNorm", x.raw(), -1, d_model(), "features");
    auto rms = ((x * x).mean_dim(D - 1) + epsilon).sqrt();
    return x / rms * gamma.val().template unsqueeze<D>();
  }
  void display_attributes(Attributes& a) const {
    a.add("d_model", d_model()).add("epsilon", epsilon);
  }
  EMBER_MODULE(RmsNorm, gamma)
};

struct RmsNormConfig {
  int64_t d_model = 0;
  double epsilon = 1e-5;
  explicit RmsNormConfig(int64_t d_model) : d_model(d_model) {}
  RmsNorm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(RmsNormConfig, d_model, epsilon)
};

}  // namespace ember::nn
