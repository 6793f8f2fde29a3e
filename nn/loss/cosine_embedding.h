#pragma once
// Cosine embedding loss (Burn's nn::loss::CosineEmbeddingLoss, PyTorch's
// nn.CosineEmbeddingLoss): for rows x1, x2 [batch, d] and targets y in {1, -1}, 1 - cos(x1, x2)
// where y = 1, max(0, cos(x1, x2) - margin) where y = -1.
#include "nn/checks.h"
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

struct CosineEmbeddingLoss {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;

  // [batch]
  Tensor<1> forward_no_reduction(const Tensor<2>& x1, const Tensor<2>& x2,
                                 const Tensor<1, Int>& target) const {
    detail::check_same_shape("CosineEmbeddingLoss", x1.raw(), x2.raw());
    detail::check_dim_size("CosineEmbeddingLoss", target.raw(), 0, x1.shape()[0], "targets");
    constexpr double kEps = 1e-12;  // PyTorch's guard against zero rows
    auto dot = (x1 * x2).sum_dim(1);
    auto norms = (((x1 * x1).sum_dim(1) + kEps) * ((x2 * x2).sum_dim(1) + kEps)).sqrt();
    auto cos = (dot / norms).template reshape<1>(Shape{-1});
    auto positive = target.equal_elem(1);
    auto pos_loss = 1.0 - cos;
    auto neg_loss = (cos - margin).clamp_min(0.0);
    return neg_loss.mask_where(positive, pos_loss);
  }
  Tensor<1> forward(const Tensor<2>& x1, const Tensor<2>& x2, const Tensor<1, Int>& target) const {
    return reduce_loss(forward_no_reduction(x1, x2, target), reduction);
  }
  EMBER_MODULE(CosineEmbeddingLoss, margin)
};

struct CosineEmbeddingLossConfig {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
  CosineEmbeddingLossConfig() = default;
  CosineEmbeddingLoss init() const {
    detail::check_range("CosineEmbeddingLossConfig", "margin", margin, -1, 1);
    return CosineEmbeddingLoss{margin, reduction};
  }
  EMBER_CONFIG(CosineEmbeddingLossConfig, margin, reduction)
};

}  // namespace ember::nn
