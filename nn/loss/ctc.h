#pragma once
// Connectionist temporal classification loss (PyTorch's nn.CTCLoss; Graves et al., 2006): the
// negative log-probability of each target sequence summed over every alignment of it to the
// input frames, computed by the forward (alpha) recursion in log space with tensor ops, so
// autodiff gives its gradient.
//
// log_probs [T, N, C] (log-softmax over C, time first as PyTorch), targets [N, S] padded class
// indices, input_lengths and target_lengths one per sample. Mean divides each sample's loss by
// its target length (at least 1) and averages over the batch, as PyTorch; Sum adds them;
// BatchMean averages without dividing. The targets and lengths are read on the host (a sync).
#include <vector>

#include "nn/config.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

class CtcLoss {
 public:
  int64_t blank = 0;
  bool zero_infinity = false;
  Reduction reduction = Reduction::Mean;

  // [N]
  Tensor<1> forward_no_reduction(const Tensor<3>& log_probs, const Tensor<2, Int>& targets,
                                 const std::vector<int64_t>& input_lengths,
                                 const std::vector<int64_t>& target_lengths) const;
  Tensor<1> forward(const Tensor<3>& log_probs, const Tensor<2, Int>& targets,
                    const std::vector<int64_t>& input_lengths,
                    const std::vector<int64_t>& target_lengths) const;

  void display_attributes(Attributes& a) const {
    a.add("blank", blank).add("zero_infinity", zero_infinity);
  }
  EMBER_MODULE(CtcLoss)
};

struct CtcLossConfig {
  int64_t blank = 0;
  bool zero_infinity = false;
  Reduction reduction = Reduction::Mean;
  CtcLossConfig() = default;
  CtcLoss init() const;
  EMBER_CONFIG(CtcLossConfig, blank, zero_infinity, reduction)
};

}  // namespace ember::nn
