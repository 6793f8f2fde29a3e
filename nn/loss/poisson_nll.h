#pragma once
// Poisson negative log-likelihood (Burn's nn::loss::PoissonNllLoss, PyTorch's
// nn.PoissonNLLLoss): exp(input) - target * input when log_input, else
// input - target * log(input + eps); `full` adds Stirling's approximation of log(target!),
// target * log(target) - target + log(2 pi target) / 2, where target > 1.
#include <numbers>

#include "nn/checks.h"
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

struct PoissonNllLoss {
  bool log_input = true;
  bool full = false;
  double eps = 1e-8;
  Reduction reduction = Reduction::Mean;

  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& input, const Tensor<D>& target) const {
    detail::check_same_shape("PoissonNllLoss", input.raw(), target.raw());
    auto loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
    if (!full) return loss;
    auto big = target.greater_elem(1.0);
    auto t = target.mask_fill(big.bool_not(), 1.0);  // log stays finite where unused
    auto stirling = t * t.log() - t + (t * (2 * std::numbers::pi)).log() * 0.5;
    return loss + stirling.mask_fill(big.bool_not(), 0.0);
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& input, const Tensor<D>& target) const {
    return reduce_loss(forward_no_reduction(input, target), reduction);
  }
  EMBER_MODULE(PoissonNllLoss, log_input, full, eps)
};

struct PoissonNllLossConfig {
  bool log_input = true;
  bool full = false;
  double eps = 1e-8;
  Reduction reduction = Reduction::Mean;
  PoissonNllLossConfig() = default;
  PoissonNllLoss init() const {
    detail::check_positive("PoissonNllLossConfig", "eps", eps);
    return PoissonNllLoss{log_input, full, eps, reduction};
  }
  EMBER_CONFIG(PoissonNllLossConfig, log_input, full, eps, reduction)
};

}  // namespace ember::nn
