#pragma once
// InstanceNorm: each channel of each sample standardised over its positions, then an optional
// per-channel affine map (Burn's nn::InstanceNorm: affine by default, unlike PyTorch).
#include "nn/group_norm.h"

namespace ember::nn {

class InstanceNorm {
 public:
  std::optional<Param<Tensor<1>>> gamma;  // [num_channels], ones, when affine
  std::optional<Param<Tensor<1>>> beta;   // [num_channels], zeros, when affine
  int64_t num_channels = 1;
  double epsilon = 1e-5;

  // [batch, num_channels, ...] -> the same shape
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    detail::check_min_rank("InstanceNorm", x.raw(), 2, "[batch, channels, ...]");
    detail::check_dim_size("InstanceNorm", x.raw(), 1, num_channels, "channels");
    return detail::group_norm(x, num_channels, epsilon, gamma, beta);
  }
  void display_attributes(Attributes& a) const {
    a.add("num_channels", num_channels).add("epsilon", epsilon).add("affine", gamma.has_value());
  }
  EMBER_MODULE(InstanceNorm, gamma, beta)
};

struct InstanceNormConfig {
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  bool affine = true;
  explicit InstanceNormConfig(int64_t num_channels) : num_channels(num_channels) {}
  InstanceNorm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(InstanceNormConfig, num_channels, epsilon, affine)
};

}  // namespace ember::nn
