#pragma once
// Smooth L1 loss (PyTorch's nn.SmoothL1Loss): for r = prediction - target, r^2 / (2 beta) where
// |r| < beta, |r| - beta / 2 beyond; the Huber loss divided by beta, and L1 when beta is 0.
#include "nn/loss/huber.h"

namespace ember::nn {

struct SmoothL1Loss {
  double beta = 1.0;
  Reduction reduction = Reduction::Mean;
  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& pred, const Tensor<D>& target) const {
    detail::check_same_shape("SmoothL1Loss", pred.raw(), target.raw());
    auto r = pred - target;
    return beta == 0 ? r.abs() : detail::huber(r, beta) / beta;
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& pred, const Tensor<D>& target) const {
    return reduce_loss(forward_no_reduction(pred, target), reduction);
  }
  EMBER_MODULE(SmoothL1Loss, beta)
};

struct SmoothL1LossConfig {
  double beta = 1.0;
  Reduction reduction = Reduction::Mean;
  SmoothL1LossConfig() = default;
  SmoothL1Loss init() const {
    if (!(beta >= 0)) {
      detail::throw_layer_error("SmoothL1LossConfig",
                                "beta must not be negative, got " + std::to_string(beta));
    }
    return SmoothL1Loss{beta, reduction};
  }
  EMBER_CONFIG(SmoothL1LossConfig, beta, reduction)
};

}  // namespace ember::nn
