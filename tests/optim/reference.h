#pragma once
// The optimizer tests' fixture: nn::Linear 3->2 with fixed weights on fixed data under a mean
// squared error, and the same model on host doubles whose gradients and updates are written
// out with plain loops from the published update rules (never from the code under test).
#include <cmath>
#include <functional>
#include <vector>

#include "tests/optim/test_util.h"

namespace ember::optim::testing {

inline const std::vector<double> kX = {0.5, -1, 2, 1.5, 0.25, -0.75, -1, 1, 0.5, 2, 0, -1};  // 4x3
inline const std::vector<double> kY = {1, -1, 0.5, 2, -0.5, 0, 1.5, 0.25};                   // 4x2
inline const std::vector<double> kW0 = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6};                     // 3x2
inline const std::vector<double> kB0 = {0.05, -0.05};

inline nn::Linear fixed_linear() {
  nn::Linear l = nn::LinearConfig(3, 2).init(dev());
  l.weight = l.weight.with_value(from_host<2>(kW0, Shape{3, 2}));
  l.bias = l.bias->with_value(from_host<1>(kB0, Shape{2}));
  return l;
}

// The model's gradients for the fixed batch, by parameter id.
inline GradientsParams fixed_grads(const nn::Linear& l) {
  // On the model's device, which a test may have moved off the suite's.
  const Device& on = l.weight.device();
  auto x = Tensor<2>::from_data(TensorData(kX, Shape{4, 3}).convert(DType::F32), on);
  auto y = Tensor<2>::from_data(TensorData(kY, Shape{4, 2}).convert(DType::F32), on);
  auto d = l.forward(x) - y;
  Gradients grads = (d * d).mean().backward();
  return GradientsParams::from_grads(grads, l);
}

// Parameters as one flat vector: the weight's 6 values, then the bias's 2.
struct HostLinear {
  std::vector<double> p = [] {
    std::vector<double> v = kW0;
    v.insert(v.end(), kB0.begin(), kB0.end());
    return v;
  }();

  // d mean((x W + b - y)^2) / d(W, b), in the same layout.
  std::vector<double> grads() const {
    std::vector<double> g(8, 0.0);
    for (int r = 0; r < 4; ++r) {
      for (int o = 0; o < 2; ++o) {
        double out = p[6 + o];
        for (int i = 0; i < 3; ++i) out += kX[r * 3 + i] * p[i * 2 + o];
        const double dy = 2 * (out - kY[r * 2 + o]) / 8;
        for (int i = 0; i < 3; ++i) g[i * 2 + o] += kX[r * 3 + i] * dy;
        g[6 + o] += dy;
      }
    }
    return g;
  }
};

// The device model's parameters in HostLinear's layout.
inline std::vector<double> params_of(const nn::Linear& l) {
  std::vector<double> v = host(l.weight.val());
  std::vector<double> b = host(l.bias->val());
  v.insert(v.end(), b.begin(), b.end());
  return v;
}

// The learning rate of step k: varies, so a step that ignored its lr would show.
inline double lr_at(int k, double base) { return base * (1 + 0.25 * k); }

}  // namespace ember::optim::testing
