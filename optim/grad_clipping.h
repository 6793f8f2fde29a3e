#pragma once
// Gradient clipping applied by an optimizer to each parameter's gradient before its update
// (Burn's GradientClipping): by value (every element clamped to [-threshold, threshold]) or by
// norm (a gradient whose L2 norm exceeds the threshold is scaled down to it). For one norm over
// all parameters (PyTorch's clip_grad_norm_) see clip_grad_norm.h.
#include <nlohmann/json.hpp>

#include "frontend/tensor.h"
#include "nn/config.h"

namespace ember::optim {

// Added to the norm before dividing, as Burn and PyTorch do, so a zero gradient stays zero.
inline constexpr double kClipNormEpsilon = 1e-6;

struct GradientClippingConfig {
  enum class Kind { value, norm };
  Kind kind = Kind::norm;
  double threshold = 1.0;

  static GradientClippingConfig value(double threshold) { return {Kind::value, threshold}; }
  static GradientClippingConfig norm(double threshold) { return {Kind::norm, threshold}; }
  // Throws ember::Error unless the threshold is positive.
  void check() const;
  EMBER_CONFIG(GradientClippingConfig, kind, threshold)

 private:
  GradientClippingConfig(Kind k, double t) : kind(k), threshold(t) {}
};

class GradientClipping {
 public:
  explicit GradientClipping(GradientClippingConfig config) : config_(config) { config_.check(); }

  template <int D>
  Tensor<D> clip(const Tensor<D>& grad) const {
    const double t = config_.threshold;
    if (config_.kind == GradientClippingConfig::Kind::value) return grad.clamp(-t, t);
    // coef = min(1, t / (|g|_2 + eps)), kept on the device: no sync to decide.
    Tensor<1> coef = (t / ((grad * grad).sum().sqrt() + kClipNormEpsilon)).clamp_max(1.0);
    if constexpr (D == 1) {
      return grad * coef;
    } else {
      return grad * coef.template unsqueeze<D>();
    }
  }
  const GradientClippingConfig& config() const { return config_; }

 private:
  GradientClippingConfig config_;
};

}  // namespace ember::optim
