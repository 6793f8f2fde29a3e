#pragma once
// Cross-entropy of class scores [batch, classes] against class indices [batch] (Burn's
// nn::loss::CrossEntropyLoss, PyTorch's nn.CrossEntropyLoss): from logits (log_softmax) or from
// probabilities (log), with optional class weights, label smoothing and padding targets.
//
// With weights w and smoothing a over C classes, sample i with target y costs
//   (1 - a) * w[y] * -log p[i, y] + a / C * sum_c w[c] * -log p[i, c];
// samples whose target is a padding token cost nothing, and Mean divides the sum by the weight
// of the samples that count, sum_i w[y_i] (their number when unweighted), as PyTorch does.
#include <optional>
#include <vector>

#include "frontend/activation.h"
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

class CrossEntropyLoss {
 public:
  std::optional<std::vector<int64_t>> pad_tokens;
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = true;
  Reduction reduction = Reduction::Mean;

  // [batch] -> [1] (Mean, Sum) or the per-sample costs [batch] (forward_no_reduction)
  Tensor<1> forward(const Tensor<2>& scores, const Tensor<1, Int>& targets) const;
  Tensor<1> forward_no_reduction(const Tensor<2>& scores, const Tensor<1, Int>& targets) const;

  void display_attributes(Attributes& a) const;
  EMBER_MODULE(CrossEntropyLoss)

 private:
  struct Terms {
    Tensor<2> cost;                   // [batch, 1], zero for padding samples
    std::optional<Tensor<2>> weight;  // [batch, 1]: w[y] (or 1), zero for padding; none if
                                      // neither weights nor padding apply
  };
  Terms terms(const Tensor<2>& scores, const Tensor<1, Int>& targets) const;
};

struct CrossEntropyLossConfig {
  std::optional<std::vector<int64_t>> pad_tokens;
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = true;
  Reduction reduction = Reduction::Mean;
  CrossEntropyLossConfig() = default;
  CrossEntropyLoss init() const;
  EMBER_CONFIG(CrossEntropyLossConfig, pad_tokens, weights, smoothing, logits, reduction)
};

}  // namespace ember::nn
