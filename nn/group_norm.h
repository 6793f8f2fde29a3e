#pragma once
// GroupNorm: the channels of a [batch, channels, ...] input split into groups, each group
// standardised over its channels and positions, then an optional per-channel affine map (Burn's
// nn::GroupNorm). InstanceNorm is GroupNorm with one channel per group (instance_norm.h).
#include <optional>

#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"
#include "nn/norm_util.h"

namespace ember::nn {

namespace detail {
// The group norm of x [N, C, ...] with `groups` groups and optional gamma, beta [C].
template <int D>
Tensor<D> group_norm(const Tensor<D>& x, int64_t groups, double epsilon,
                     const std::optional<Param<Tensor<1>>>& gamma,
                     const std::optional<Param<Tensor<1>>>& beta) {
  int64_t n = x.shape()[0];
  auto grouped = x.template reshape<3>(Shape{n, groups, -1});
  auto y = standardize_last(grouped, epsilon).template reshape<D>(x.shape());
  if (gamma) y = y * per_channel<D>(gamma->val());
  if (beta) y = y + per_channel<D>(beta->val());
  return y;
}
}  // namespace detail

class GroupNorm {
 public:
  std::optional<Param<Tensor<1>>> gamma;  // [num_channels], ones, when affine
  std::optional<Param<Tensor<1>>> beta;   // [num_channels], zeros, when affine
  int64_t num_groups = 1;
  int64_t num_channels = 1;
  double epsilon = 1e-5;

  // [batch, num_channels, ...] -> the same shape
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    detail::check_min_rank("GroupNorm", x.raw(), 2, "[batch, channels, ...]");
    detail::check_dim_size("GroupNorm", x.raw(), 1, num_channels, "channels");
    return detail::group_norm(x, num_groups, epsilon, gamma, beta);
  }
  void display_attributes(Attributes& a) const {
    a.add("num_groups", num_groups).add("num_channels", num_channels).add("epsilon", epsilon);
    a.add("affine", gamma.has_value());
  }
  EMBER_MODULE(GroupNorm, gamma, beta)
};

struct GroupNormConfig {
  int64_t num_groups = 0;
  int64_t num_channels = 0;
  double epsilon = 1e-5;
  bool affine = true;
  GroupNormConfig(int64_t num_groups, int64_t num_channels)
      : num_groups(num_groups), num_channels(num_channels) {}
  GroupNorm init(const Device& device = Device::default_device()) const;
  EMBER_CONFIG(GroupNormConfig, num_groups, num_channels, epsilon, affine)
};

}  // namespace ember::nn
