#pragma once
// What the normalisation layers share: standardising over the last dim, and reshaping a
// per-channel vector to broadcast against a [batch, channels, ...] input.
#include "frontend/tensor.h"

namespace ember::nn::detail {

// (x - mean) / sqrt(var + eps) over the last dim, with the population variance (as Burn and
// PyTorch).
template <int D>
Tensor<D> standardize_last(const Tensor<D>& x, double epsilon) {
  auto [var, mean] = x.var_mean_bias(D - 1);
  return (x - mean) / (var + epsilon).sqrt();
}

// [C] -> [1, C, 1, ...] of rank D.
template <int D>
Tensor<D> per_channel(const Tensor<1>& v) {
  Shape s = Shape::ones(D);
  s[1] = v.shape()[0];
  return v.template reshape<D>(s);
}

}  // namespace ember::nn::detail
