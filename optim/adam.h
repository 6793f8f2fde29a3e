#pragma once
// Adam (Kingma and Ba; Burn's Adam, with PyTorch's amsgrad option). Per step t (counted per
// parameter), with g the gradient of w:
//   g = g + weight_decay * w                      (optional L2 penalty, as Burn's Adam)
//   m = beta_1 m + (1 - beta_1) g;  v = beta_2 v + (1 - beta_2) g^2   (m, v start at 0)
//   v_hat = max(v_hat, v) with amsgrad, else v
//   w = w - lr * (m / (1 - beta_1^t)) / (sqrt(v_hat / (1 - beta_2^t)) + epsilon)
// Defaults are Burn's: beta_1 0.9, beta_2 0.999, epsilon 1e-5. PyTorch's epsilon is 1e-8; set
// with_epsilon(1e-8) to follow a PyTorch recipe exactly (the difference shows where v is tiny).
#include <cmath>
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

namespace detail {

// The moments Adam and AdamW keep per parameter, and their shared update direction.
struct AdamMoments {
  RawTensor m, v;
  std::optional<RawTensor> v_max;  // amsgrad only
  int64_t t = 0;
  AdamMoments to_device(const Device& d) const {
    return {state_to_device(m, d), state_to_device(v, d), state_to_device(v_max, d), t};
  }
};

struct AdamHyper {
  double beta_1, beta_2, epsilon;
  bool amsgrad;

  // The bias-corrected step direction for g, and the moments after this step.
  template <int D>
  std::pair<Tensor<D>, AdamMoments> direction(const Tensor<D>& g,
                                              const std::optional<AdamMoments>& s) const {
    AdamMoments next;
    next.t = s ? s->t + 1 : 1;
    Tensor<D> m = g * (1 - beta_1), v = g * g * (1 - beta_2);
    if (s) {
      m = Tensor<D>(s->m) * beta_1 + m;
      v = Tensor<D>(s->v) * beta_2 + v;
    }
    next.m = m.raw();
    next.v = v.raw();
    Tensor<D> v_used = v;
    if (amsgrad) {
      if (s && s->v_max) v_used = Tensor<D>(*s->v_max).max_pair(v);
      next.v_max = v_used.raw();
    }
    const double c1 = 1 - std::pow(beta_1, static_cast<double>(next.t));
    const double c2 = 1 - std::pow(beta_2, static_cast<double>(next.t));
    return {(m / c1) / ((v_used / c2).sqrt() + epsilon), std::move(next)};
  }
};

void check_adam_hyper(const char* config, double beta_1, double beta_2, double epsilon);

}  // namespace detail

class AdamRule {
 public:
  static constexpr const char* kName = "Adam";
  using State = detail::AdamMoments;

  AdamRule(detail::AdamHyper hyper, std::optional<double> weight_decay)
      : hyper_(hyper), weight_decay_(weight_decay) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, Tensor<D> g,
                                   std::optional<State> state) const {
    if (weight_decay_) g = g + w * *weight_decay_;
    auto [dir, next] = hyper_.direction(g, state);
    return {w - dir * lr, std::move(next)};
  }

 private:
  detail::AdamHyper hyper_;
  std::optional<double> weight_decay_;
};

using Adam = Optimizer<AdamRule>;

struct AdamConfig {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-5;  // Burn's; PyTorch's is 1e-8
  bool amsgrad = false;
  std::optional<double> weight_decay;  // L2 penalty added to the gradient (not decoupled: AdamW)
  std::optional<GradientClippingConfig> grad_clipping;

  AdamConfig() = default;
  // Throws ember::Error naming AdamConfig for betas outside [0, 1), a non-positive epsilon or a
  // negative weight decay.
  Adam init() const;
  EMBER_CONFIG(AdamConfig, beta_1, beta_2, epsilon, amsgrad, weight_decay, grad_clipping)
};

}  // namespace ember::optim
