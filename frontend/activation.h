#pragma once
// Activation functions (Burn's burn::tensor::activation), composed from primitives.
#include "frontend/tensor.h"

namespace ember::activation {

template <int D>
Tensor<D> gelu(const Tensor<D>& x) {
  return Tensor<D>(ops::gelu(x.raw()));
}
template <int D>
Tensor<D> relu(const Tensor<D>& x) {
  return Tensor<D>(ops::relu(x.raw()));
}
template <int D>
Tensor<D> leaky_relu(const Tensor<D>& x, double negative_slope) {
  return Tensor<D>(ops::leaky_relu(x.raw(), negative_slope));
}
template <int D>
Tensor<D> sigmoid(const Tensor<D>& x) {
  return Tensor<D>(ops::sigmoid(x.raw()));
}
template <int D>
Tensor<D> log_sigmoid(const Tensor<D>& x) {
  return Tensor<D>(ops::log_sigmoid(x.raw()));
}
// clamp(alpha * x + beta, 0, 1); PyTorch's hardsigmoid is alpha = 1/6, beta = 0.5.
template <int D>
Tensor<D> hard_sigmoid(const Tensor<D>& x, double alpha, double beta) {
  return Tensor<D>(ops::hard_sigmoid(x.raw(), alpha, beta));
}
template <int D>
Tensor<D> silu(const Tensor<D>& x) {
  return Tensor<D>(ops::silu(x.raw()));
}
template <int D>
Tensor<D> mish(const Tensor<D>& x) {
  return Tensor<D>(ops::mish(x.raw()));
}
template <int D>
Tensor<D> softplus(const Tensor<D>& x, double beta = 1.0) {
  return Tensor<D>(ops::softplus(x.raw(), beta));
}
// alpha: one slope, or one per channel (dim 1 of x).
template <int D>
Tensor<D> prelu(const Tensor<D>& x, const Tensor<1>& alpha) {
  return Tensor<D>(ops::prelu(x.raw(), alpha.raw()));
}
template <int D>
Tensor<D> tanh(const Tensor<D>& x) {
  return x.tanh();
}
template <int D>
Tensor<D> softmax(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::softmax(x.raw(), dim));
}
template <int D>
Tensor<D> softmin(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::softmin(x.raw(), dim));
}
template <int D>
Tensor<D> log_softmax(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::log_softmax(x.raw(), dim));
}
// Softmax with an implicit extra zero logit, so a row can attend to nothing.
template <int D>
Tensor<D> quiet_softmax(const Tensor<D>& x, int64_t dim) {
  return Tensor<D>(ops::quiet_softmax(x.raw(), dim));
}

}  // namespace ember::activation
