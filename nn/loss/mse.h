#pragma once
// Mean squared error (Burn's nn::loss::MseLoss): (prediction - target)^2, reduced.
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

struct MseLoss {
  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& pred, const Tensor<D>& target) const {
    detail::check_same_shape("MseLoss", pred.raw(), target.raw());
    auto r = pred - target;
    return r * r;
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& pred, const Tensor<D>& target,
                    Reduction reduction = Reduction::Mean) const {
    return reduce_loss(forward_no_reduction(pred, target), reduction);
  }
  EMBER_MODULE(MseLoss)
};

}  // namespace ember::nn
