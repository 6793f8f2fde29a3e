#pragma once
// RMSProp (Hinton's lecture 6e; Burn's RmsProp, PyTorch's RMSprop), with g the gradient of w:
//   g = g + weight_decay * w                                      (optional L2 penalty)
//   s = alpha s + (1 - alpha) g^2                                 (s starts at 0)
//   centered: a = alpha a + (1 - alpha) g, s_used = s - a^2;  else s_used = s
//   d = g / (sqrt(s_used) + epsilon)
//   momentum > 0: b = momentum b + d (b starts at 0), d = b
//   w = w - lr * d
// Defaults are Burn's: alpha 0.99, epsilon 1e-5 (PyTorch 1e-8), momentum 0, not centered.
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

class RmsPropRule {
 public:
  static constexpr const char* kName = "RmsProp";
  struct State {
    RawTensor square_avg;
    std::optional<RawTensor> grad_avg;  // centered only
    std::optional<RawTensor> buffer;    // momentum only
    State to_device(const Device& d) const {
      return {detail::state_to_device(square_avg, d), detail::state_to_device(grad_avg, d),
              detail::state_to_device(buffer, d)};
    }
  };
  struct Hyper {
    double alpha, epsilon, momentum;
    bool centered;
    std::optional<double> weight_decay;
  };

  explicit RmsPropRule(Hyper h) : h_(h) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, Tensor<D> g,
                                   std::optional<State> s) const {
    if (h_.weight_decay) g = g + w * *h_.weight_decay;
    State next;
    Tensor<D> sq = g * g * (1 - h_.alpha);
    if (s) sq = Tensor<D>(s->square_avg) * h_.alpha + sq;
    next.square_avg = sq.raw();
    if (h_.centered) {
      Tensor<D> a = g * (1 - h_.alpha);
      if (s && s->grad_avg) a = Tensor<D>(*s->grad_avg) * h_.alpha + a;
      next.grad_avg = a.raw();
      sq = sq - a * a;
    }
    Tensor<D> d = g / (sq.sqrt() + h_.epsilon);
    if (h_.momentum > 0) {
      if (s && s->buffer) d = Tensor<D>(*s->buffer) * h_.momentum + d;
      next.buffer = d.raw();
    }
    return {w - d * lr, std::move(next)};
  }

 private:
  Hyper h_;
};

using RmsProp = Optimizer<RmsPropRule>;

struct RmsPropConfig {
  double alpha = 0.99;
  double epsilon = 1e-5;  // Burn's; PyTorch's is 1e-8
  double momentum = 0;
  bool centered = false;
  std::optional<double> weight_decay;
  std::optional<GradientClippingConfig> grad_clipping;

  RmsPropConfig() = default;
  // Throws ember::Error naming RmsPropConfig for alpha outside [0, 1], a non-positive epsilon, or
  // a negative momentum or weight decay.
  RmsProp init() const;
  EMBER_CONFIG(RmsPropConfig, alpha, epsilon, momentum, centered, weight_decay, grad_clipping)
};

}  // namespace ember::optim
