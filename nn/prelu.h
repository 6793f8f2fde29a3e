#pragma once
// PRelu: max(0, x) + alpha * min(0, x) with a learned slope, one for all channels or one per
// channel (dim 1) (Burn's nn::PRelu).
#include "frontend/activation.h"
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"

namespace ember::nn {

class PRelu {
 public:
  Param<Tensor<1>> alpha;  // [num_parameters]

  int64_t num_parameters() const { return alpha.shape()[0]; }
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    if (num_parameters() > 1) {
      detail::check_min_rank("PRelu", x.raw(), 2, "[batch, channels, ...]");
      detail::check_dim_size("PRelu", x.raw(), 1, num_parameters(), "channels");
    }
    return activation::prelu(x, alpha.val());
  }
  void display_attributes(Attributes& a) const { a.add("num_parameters", num_parameters()); }
  EMBER_MODULE(PRelu, alpha)
};

struct PReluConfig {
  int64_t num_parameters = 1;
  double alpha = 0.25;
  PReluConfig() = default;
  PRelu init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(PReluConfig, num_parameters, alpha)
};

}  // namespace ember::nn
