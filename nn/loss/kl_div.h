#pragma once
// Kullback-Leibler divergence (PyTorch's nn.KLDivLoss): predictions are log-probabilities,
// targets probabilities (log-probabilities when log_target); elementwise
// target * (log(target) - prediction), 0 where the target is 0.
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

struct KlDivLoss {
  bool log_target = false;
  Reduction reduction = Reduction::Mean;
  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& log_pred, const Tensor<D>& target) const {
    detail::check_same_shape("KlDivLoss", log_pred.raw(), target.raw());
    if (log_target) return target.exp() * (target - log_pred);
    // log of 1 where the target is 0, so 0 * log(0) reads as 0 instead of NaN.
    auto safe = target.mask_fill(target.lower_equal_elem(0.0), 1.0);
    return target * (safe.log() - log_pred);
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& log_pred, const Tensor<D>& target) const {
    return reduce_loss(forward_no_reduction(log_pred, target), reduction);
  }
  EMBER_MODULE(KlDivLoss, log_target)
};

struct KlDivLossConfig {
  bool log_target = false;
  Reduction reduction = Reduction::Mean;
  KlDivLossConfig() = default;
  KlDivLoss init() const { return KlDivLoss{log_target, reduction}; }
  EMBER_CONFIG(KlDivLossConfig, log_target, reduction)
};

}  // namespace ember::nn
