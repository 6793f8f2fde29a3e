#pragma once
// Activation modules without parameters (Burn's nn::Relu, nn::Gelu, ...), composed from the
// frontend's activation functions and tensor ops. Each works on any rank. Those with settings
// have an XConfig; PRelu (a parameter) and SwiGlu (two Linears) have their own files.
#include <cmath>

#include "frontend/activation.h"
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/module.h"

namespace ember::nn {

struct Relu {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::relu(x);
  }
  EMBER_MODULE(Relu)
};

struct Gelu {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::gelu(x);
  }
  EMBER_MODULE(Gelu)
};

struct Sigmoid {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::sigmoid(x);
  }
  EMBER_MODULE(Sigmoid)
};

struct Tanh {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return x.tanh();
  }
  EMBER_MODULE(Tanh)
};

struct Silu {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::silu(x);
  }
  EMBER_MODULE(Silu)
};

struct Mish {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::mish(x);
  }
  EMBER_MODULE(Mish)
};

// x * hard_sigmoid(x) with PyTorch's slope 1/6 and offset 1/2: x * relu6(x + 3) / 6.
struct HardSwish {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return x * activation::hard_sigmoid(x, 1.0 / 6.0, 0.5);
  }
  EMBER_MODULE(HardSwish)
};

// x / (1 + |x|)
struct Softsign {
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return x / (x.abs() + 1.0);
  }
  EMBER_MODULE(Softsign)
};

// scale * (x if x > 0 else alpha * (exp(x) - 1)), the self-normalising constants of Klambauer
// et al. (as PyTorch).
struct Selu {
  static constexpr double kAlpha = 1.6732632423543772848170429916717;
  static constexpr double kScale = 1.0507009873554804934193349852946;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    // exp of min(x, 0): the positive side never overflows, so its gradient stays finite.
    return (activation::relu(x) + (x.clamp_max(0.0).exp() - 1.0) * kAlpha) * kScale;
  }
  EMBER_MODULE(Selu)
};

struct LeakyRelu {
  double negative_slope = 0.01;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::leaky_relu(x, negative_slope);
  }
  EMBER_MODULE(LeakyRelu, negative_slope)
};

struct LeakyReluConfig {
  double negative_slope = 0.01;
  LeakyReluConfig(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  LeakyRelu init() const { return LeakyRelu{negative_slope}; }
  EMBER_CONFIG(LeakyReluConfig, negative_slope)
};

// clamp(alpha * x + beta, 0, 1); Burn's defaults are ONNX's (alpha 0.2, beta 0.5).
struct HardSigmoid {
  double alpha = 0.2;
  double beta = 0.5;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::hard_sigmoid(x, alpha, beta);
  }
  EMBER_MODULE(HardSigmoid, alpha, beta)
};

struct HardSigmoidConfig {
  double alpha = 0.2;
  double beta = 0.5;
  HardSigmoidConfig() = default;
  HardSigmoid init() const { return HardSigmoid{alpha, beta}; }
  EMBER_CONFIG(HardSigmoidConfig, alpha, beta)
};

// x if x > 0 else alpha * (exp(x) - 1)
struct Elu {
  double alpha = 1.0;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::relu(x) + (x.clamp_max(0.0).exp() - 1.0) * alpha;
  }
  EMBER_MODULE(Elu, alpha)
};

struct EluConfig {
  double alpha = 1.0;
  EluConfig() = default;
  Elu init() const { return Elu{alpha}; }
  EMBER_CONFIG(EluConfig, alpha)
};

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
struct Celu {
  double alpha = 1.0;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::relu(x) + ((x.clamp_max(0.0) / alpha).exp() - 1.0) * alpha;
  }
  EMBER_MODULE(Celu, alpha)
};

struct CeluConfig {
  double alpha = 1.0;
  CeluConfig() = default;
  Celu init() const {
    detail::check_positive("CeluConfig", "alpha", alpha);
    return Celu{alpha};
  }
  EMBER_CONFIG(CeluConfig, alpha)
};

// log(1 + exp(beta * x)) / beta
struct Softplus {
  double beta = 1.0;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    return activation::softplus(x, beta);
  }
  EMBER_MODULE(Softplus, beta)
};

struct SoftplusConfig {
  double beta = 1.0;
  SoftplusConfig() = default;
  Softplus init() const {
    detail::check_positive("SoftplusConfig", "beta", beta);
    return Softplus{beta};
  }
  EMBER_CONFIG(SoftplusConfig, beta)
};

// Gated linear unit: the input halved along `dim` into a and b, a * sigmoid(b).
struct Glu {
  int64_t dim = -1;
  template <int D>
  Tensor<D> forward(const Tensor<D>& x) const {
    int64_t d = dim < 0 ? dim + D : dim;
    if (d < 0 || d >= D || x.shape()[static_cast<int>(d)] % 2 != 0) {
      detail::throw_layer_error("Glu", "dim " + std::to_string(dim) +
                                           " must exist and have an even size, got " +
                                           x.raw().type().to_string());
    }
    auto halves = x.chunk(2, d);
    return halves[0] * activation::sigmoid(halves[1]);
  }
  EMBER_MODULE(Glu, dim)
};

struct GluConfig {
  int64_t dim = -1;
  GluConfig(int64_t dim = -1) : dim(dim) {}
  Glu init() const { return Glu{dim}; }
  EMBER_CONFIG(GluConfig, dim)
};

}  // namespace ember::nn
