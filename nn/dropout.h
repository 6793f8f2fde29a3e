#pragma once
// Dropout: in training, zeroes each element with probability `prob` and scales the rest by
// 1 / (1 - prob); the identity in valid() copies (Burn's nn::Dropout).
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"

namespace ember::nn {

class Dropout {
 public:
  double prob = 0.5;

  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    if (!training_ || prob == 0) return x;
    auto keep = x.random_like(Distribution::bernoulli(1.0 - prob));
    return x * keep / (1.0 - prob);
  }
  bool is_training() const { return training_; }
  void set_training(bool on) { training_ = on; }
  EMBER_MODULE(Dropout, prob)

 private:
  bool training_ = true;
};

struct DropoutConfig {
  double prob = 0.5;
  explicit DropoutConfig(double prob) : prob(prob) {}
  Dropout init() const {
    // prob 1 would divide by zero: every element dropped, nothing to rescale.
    if (!(prob >= 0 && prob < 1)) {
      detail::throw_layer_error("DropoutConfig",
                                "prob must be in [0, 1), got " + std::to_string(prob));
    }
    Dropout d;
    d.prob = prob;
    return d;
  }
  EMBER_CONFIG(DropoutConfig, prob)
};

}  // namespace ember::nn
