#pragma once
// LayerNorm: standardises the last dim, then scales by gamma and shifts by beta (Burn's
// nn::LayerNorm; PyTorch's nn.LayerNorm over one dim).
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/initializer.h"
#include "nn/module.h"
#include "nn/norm_util.h"

namespace ember::nn {

class LayerNorm {
 public:
  Param<Tensor<1>> gamma;  // [d_model], ones
  Param<Tensor<1>> beta;   // [d_model], zeros
  double epsilon = 1e-5;

  int64_t d_model() const { return gamma.shape()[0]; }
  // [..., d_model] -> the same shape
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    detail::check_dim_size("LayerNorm", x.raw(), -1, d_model(), "features");
    auto y = detail::standardize_last(x, epsilon);
    return y * gamma.val().template unsqueeze<D>() + beta.val().template unsqueeze<D>();
  }
  void display_attributes(Attributes& a) const {
    a.add("d_model", d_model()).add("epsilon", epsilon);
  }
  EMBER_MODULE(LayerNorm, gamma, beta)
};

struct LayerNormConfig {
  int64_t d_model = 0;
  double epsilon = 1e-5;
  explicit LayerNormConfig(int64_t d_model) : d_model(d_model) {}
  LayerNorm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(LayerNormConfig, d_model, epsilon)
};

}  // namespace ember::nn
