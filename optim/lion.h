#pragma once
// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"; beyond Burn and
// PyTorch). The update is the sign of an interpolation of the momentum and the gradient, so
// every element moves by exactly lr (use a learning rate 3-10x below AdamW's):
//   c = beta_1 m + (1 - beta_1) g
//   w = w * (1 - lr * weight_decay) - lr * sign(c)
//   m = beta_2 m + (1 - beta_2) g                    (m starts at 0)
// Defaults are the paper's: beta_1 0.9, beta_2 0.99, weight_decay 0.
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

class LionRule {
 public:
  static constexpr const char* kName = "Lion";
  struct State {
    RawTensor m;
    State to_device(const Device& d) const { return {detail::state_to_device(m, d)}; }
  };

  LionRule(double beta_1, double beta_2, double weight_decay)
      : beta_1_(beta_1), beta_2_(beta_2), weight_decay_(weight_decay) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, const Tensor<D>& g,
                                   std::optional<State> s) const {
    Tensor<D> c = g * (1 - beta_1_), m = g * (1 - beta_2_);
    if (s) {
      c = Tensor<D>(s->m) * beta_1_ + c;
      m = Tensor<D>(s->m) * beta_2_ + m;
    }
    const double decay = lr * weight_decay_;
    Tensor<D> decayed = decay == 0 ? w : w * (1 - decay);
    return {decayed - c.sign() * lr, State{m.raw()}};
  }

 private:
  double beta_1_, beta_2_, weight_decay_;
};

using Lion = Optimizer<LionRule>;

struct LionConfig {
  double beta_1 = 0.9;
  double beta_2 = 0.99;
  double weight_decay = 0;
  std::optional<GradientClippingConfig> grad_clipping;

  LionConfig() = default;
  // Throws ember::Error naming LionConfig for betas outside [0, 1] or a negative weight decay.
  Lion init() const;
  EMBER_CONFIG(LionConfig, beta_1, beta_2, weight_decay, grad_clipping)
};

}  // namespace ember::optim
