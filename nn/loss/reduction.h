#pragma once
// How a loss reduces its elementwise values: Mean (of every element), Sum, or BatchMean (the sum
// divided by the batch size, dim 0: PyTorch's KLDivLoss 'batchmean'). The unreduced values come
// from each loss's forward_no_reduction.
#include <nlohmann/json.hpp>

#include "frontend/tensor.h"

namespace ember::nn {

enum class Reduction { Mean, Sum, BatchMean };

NLOHMANN_JSON_SERIALIZE_ENUM(Reduction, {{Reduction::Mean, "Mean"},
                                         {Reduction::Sum, "Sum"},
                                         {Reduction::BatchMean, "BatchMean"}})

template <int D>
Tensor<1> reduce_loss(const Tensor<D>& loss, Reduction r) {
  switch (r) {
    case Reduction::Sum:
      return loss.sum();
    case Reduction::BatchMean:
      return loss.sum() / static_cast<double>(loss.shape()[0]);
    case Reduction::Mean:
      break;
  }
  return loss.mean();
}

}  // namespace ember::nn
