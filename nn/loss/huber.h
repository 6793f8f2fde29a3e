#pragma once
// Huber loss (Burn's nn::loss::HuberLoss, PyTorch's nn.HuberLoss): for r = prediction - target,
// r^2 / 2 where |r| <= delta, delta * (|r| - delta / 2) beyond.
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

namespace detail {
// Written as q^2 / 2 + delta * (|r| - q) with q = min(|r|, delta): one expression, no branch,
// and its gradient is r inside the band and delta * sign(r) outside.
template <int D>
Tensor<D> huber(const Tensor<D>& r, double delta) {
  auto a = r.abs();
  auto q = a.clamp_max(delta);
  return q * q * 0.5 + (a - q) * delta;
}
}  // namespace detail

struct HuberLoss {
  double delta = 1.0;
  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& pred, const Tensor<D>& target) const {
    detail::check_same_shape("HuberLoss", pred.raw(), target.raw());
    return detail::huber(pred - target, delta);
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& pred, const Tensor<D>& target,
                    Reduction reduction = Reduction::Mean) const {
    return reduce_loss(forward_no_reduction(pred, target), reduction);
  }
  EMBER_MODULE(HuberLoss, delta)
};

struct HuberLossConfig {
  double delta = 1.0;
  explicit HuberLossConfig(double delta) : delta(delta) {}
  HuberLoss init() const {
    detail::check_positive("HuberLossConfig", "delta", delta);
    return HuberLoss{delta};
  }
  EMBER_CONFIG(HuberLossConfig, delta)
};

}  // namespace ember::nn
