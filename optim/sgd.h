#pragma once
// Stochastic gradient descent with optional L2 weight decay and momentum (Burn's Sgd; PyTorch's
// torch.optim.SGD computes the same). Per step, with g the gradient of w:
//   g = g + weight_decay * w                       (weight decay)
//   v = g on the first step, else momentum * v + (1 - dampening) * g
//   g = g + momentum * v (Nesterov) or v           (momentum)
//   w = w - lr * g
// Burn's momentum defaults (0.9, dampening 0.1) differ from PyTorch's (no default momentum,
// dampening 0).
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

struct MomentumConfig {
  double momentum = 0.9;
  double dampening = 0.1;
  bool nesterov = false;
  MomentumConfig() = default;
  EMBER_CONFIG(MomentumConfig, momentum, dampening, nesterov)
};

class SgdRule {
 public:
  static constexpr const char* kName = "Sgd";
  struct State {
    RawTensor velocity;
    State to_device(const Device& d) const { return {detail::state_to_device(velocity, d)}; }
  };

  SgdRule(std::optional<double> weight_decay, std::optional<MomentumConfig> momentum)
      : weight_decay_(weight_decay), momentum_(momentum) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, Tensor<D> g,
                                   std::optional<State> state) const {
    if (weight_decay_) g = g + w * *weight_decay_;
    State next;
    if (momentum_) {
      const MomentumConfig& m = *momentum_;
      Tensor<D> v = state && state->velocity.defined()
                        ? Tensor<D>(state->velocity) * m.momentum + g * (1 - m.dampening)
                        : g;
      next.velocity = v.raw();
      g = m.nesterov ? g + v * m.momentum : v;
    }
    return {w - g * lr, std::move(next)};
  }

 private:
  std::optional<double> weight_decay_;
  std::optional<MomentumConfig> momentum_;
};

using Sgd = Optimizer<SgdRule>;

struct SgdConfig {
  std::optional<double> weight_decay;  // L2 penalty added to the gradient
  std::optional<MomentumConfig> momentum;
  std::optional<GradientClippingConfig> grad_clipping;

  SgdConfig() = default;
  // Throws ember::Error naming SgdConfig for a negative weight decay, momentum or dampening.
  Sgd init() const;
  EMBER_CONFIG(SgdConfig, weight_decay, momentum, grad_clipping)
};

}  // namespace ember::optim
