#pragma once
// AdaGrad (Duchi, Hazan and Singer; Burn's AdaGrad, PyTorch's Adagrad). Per step t (from 1, per
// parameter), with g the gradient of w:
//   g = g + weight_decay * w                       (optional L2 penalty)
//   s = s + g^2                                    (s starts at 0)
//   w = w - lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + epsilon)
// Defaults are Burn's: lr_decay 0, epsilon 1e-5 (PyTorch 1e-10).
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

class AdaGradRule {
 public:
  static constexpr const char* kName = "AdaGrad";
  struct State {
    RawTensor sum;
    int64_t t = 0;
    State to_device(const Device& d) const { return {detail::state_to_device(sum, d), t}; }
  };

  AdaGradRule(double lr_decay, double epsilon, std::optional<double> weight_decay)
      : lr_decay_(lr_decay), epsilon_(epsilon), weight_decay_(weight_decay) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, Tensor<D> g,
                                   std::optional<State> s) const {
    if (weight_decay_) g = g + w * *weight_decay_;
    State next;
    next.t = s ? s->t + 1 : 1;
    Tensor<D> sum = s ? Tensor<D>(s->sum) + g * g : g * g;
    next.sum = sum.raw();
    const double clr = lr / (1 + static_cast<double>(next.t - 1) * lr_decay_);
    return {w - g / (sum.sqrt() + epsilon_) * clr, std::move(next)};
  }

 private:
  double lr_decay_, epsilon_;
  std::optional<double> weight_decay_;
};

using AdaGrad = Optimizer<AdaGradRule>;

struct AdaGradConfig {
  double lr_decay = 0;
  double epsilon = 1e-5;  // Burn's; PyTorch's is 1e-10
  std::optional<double> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;

  AdaGradConfig() = default;
  // Throws ember::Error naming AdaGradConfig for a negative lr_decay or weight decay or a
  // non-positive epsilon.
  AdaGrad init() const;
  EMBER_CONFIG(AdaGradConfig, lr_decay, epsilon, weight_decay, grad_clipping)
};

}  // namespace ember::optim
