#pragma once
// AdamW (Loshchilov and Hutter; Burn's AdamW): Adam with decoupled weight decay, which shrinks
// the weight instead of adding to the gradient, so the decay is not rescaled by the moments:
//   w = w * (1 - lr * weight_decay) - lr * (Adam's bias-corrected direction)
// Defaults are Burn's: beta_1 0.9, beta_2 0.999, epsilon 1e-5, weight_decay 1e-4. PyTorch's
// AdamW uses epsilon 1e-8 and weight_decay 1e-2.
#include <optional>
#include <utility>

#include "optim/adam.h"

namespace ember::optim {

class AdamWRule {
 public:
  static constexpr const char* kName = "AdamW";
  using State = detail::AdamMoments;

  AdamWRule(detail::AdamHyper hyper, double weight_decay)
      : hyper_(hyper), weight_decay_(weight_decay) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, const Tensor<D>& g,
                                   std::optional<State> state) const {
    auto [dir, next] = hyper_.direction(g, state);
    const double decay = lr * weight_decay_;
    Tensor<D> decayed = decay == 0 ? w : w * (1 - decay);
    return {decayed - dir * lr, std::move(next)};
  }

 private:
  detail::AdamHyper hyper_;
  double weight_decay_;
};

using AdamW = Optimizer<AdamWRule>;

struct AdamWConfig {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-5;       // Burn's; PyTorch's is 1e-8
  double weight_decay = 1e-4;  // Burn's; PyTorch's is 1e-2
  bool amsgrad = false;
  std::optional<GradientClippingConfig> grad_clipping;

  AdamWConfig() = default;
  // Throws ember::Error naming AdamWConfig for betas outside [0, 1), a non-positive epsilon or a
  // negative weight decay.
  AdamW init() const;
  EMBER_CONFIG(AdamWConfig, beta_1, beta_2, epsilon, weight_decay, amsgrad, grad_clipping)
};

}  // namespace ember::optim
