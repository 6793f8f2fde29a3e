#pragma once
// Muon (K. Jordan et al. 2024, "Muon: MomentUm Orthogonalized by Newton-schulz"; beyond Burn and
// PyTorch). For a matrix parameter, the momentum update is replaced by its nearest
// semi-orthogonal matrix, approximated by five Newton-Schulz iterations:
//   m = beta m + g;  u = g + beta m (Nesterov) or m   (the first reference implementation's form)
//   X = u / (|u|_F + 1e-7), transposed when it has more rows than columns; five times:
//     A = X X^T;  X = a X + (b A + c A A) X        (a, b, c) = (3.4445, -4.7750, 2.0315)
//   w = w * (1 - lr * weight_decay) - lr * sqrt(max(1, rows / cols)) * X
// Parameters of other ranks (biases, norms' scales) take the plain momentum update w -= lr * u,
// since orthogonalising a vector is meaningless (the reference pairs them with AdamW; give them
// their own optimizer through GradientsParams of the sub-module for that).
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "nn/config.h"
#include "optim/optimizer.h"
#include "optim/state.h"

namespace ember::optim {

namespace detail {
// The quintic Newton-Schulz iteration's orthogonalisation of a matrix (the reference's).
Tensor<2> newton_schulz5(const Tensor<2>& g);
}  // namespace detail

class MuonRule {
 public:
  static constexpr const char* kName = "Muon";
  struct State {
    RawTensor m;
    State to_device(const Device& d) const { return {detail::state_to_device(m, d)}; }
  };

  MuonRule(double momentum, bool nesterov, double weight_decay)
      : momentum_(momentum), nesterov_(nesterov), weight_decay_(weight_decay) {}

  template <int D>
  std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w, const Tensor<D>& g,
                                   std::optional<State> s) const {
    Tensor<D> m = s ? Tensor<D>(s->m) * momentum_ + g : g;
    Tensor<D> u = nesterov_ ? g + m * momentum_ : m;
    const double decay = lr * weight_decay_;
    Tensor<D> decayed = decay == 0 ? w : w * (1 - decay);
    if constexpr (D == 2) {
      const double rows = static_cast<double>(w.shape()[0]);
      const double cols = static_cast<double>(w.shape()[1]);
      const double scale = std::sqrt(std::max(1.0, rows / cols));
      return {decayed - detail::newton_schulz5(u) * (lr * scale), State{m.raw()}};
    } else {
      return {decayed - u * lr, State{m.raw()}};
    }
  }

 private:
  double momentum_;
  bool nesterov_;
  double weight_decay_;
};

using Muon = Optimizer<MuonRule>;

struct MuonConfig {
  double momentum = 0.95;
  bool nesterov = true;
  double weight_decay = 0;
  std::optional<GradientClippingConfig> grad_clipping;

  MuonConfig() = default;
  // Throws ember::Error naming MuonConfig for a momentum outside [0, 1] or a negative decay.
  Muon init() const;
  EMBER_CONFIG(MuonConfig, momentum, nesterov, weight_decay, grad_clipping)
};

}  // namespace ember::optim
