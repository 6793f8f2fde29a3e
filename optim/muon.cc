#include "optim/muon.h"

#include "nn/checks.h"
#include "optim/checks.h"

namespace ember::optim {

namespace detail {

Tensor<2> newton_schulz5(const Tensor<2>& g) {
  constexpr double a = 3.4445, b = -4.7750, c = 2.0315;
  // Iterating on the wide orientation keeps A = X X^T the smaller square.
  const bool tall = g.shape()[0] > g.shape()[1];
  Tensor<2> x = tall ? g.transpose() : g;
  x = x / ((x * x).sum().sqrt() + 1e-7).unsqueeze<2>();
  for (int i = 0; i < 5; ++i) {
    Tensor<2> aa = x.matmul(x.transpose());
    Tensor<2> bb = aa * b + aa.matmul(aa) * c;
    x = x * a + bb.matmul(x);
  }
  return tall ? x.transpose() : x;
}

}  // namespace detail

Muon MuonConfig::init() const {
  nn::detail::check_range("MuonConfig", "momentum", momentum, 0, 1);
  detail::check_non_negative("MuonConfig", "weight_decay", weight_decay);
  if (grad_clipping) grad_clipping->check();
  return Muon(MuonRule(momentum, nesterov, weight_decay), grad_clipping);
}

}  // namespace ember::optim
