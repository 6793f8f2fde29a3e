#pragma once
// What training and validation steps return (Burn's TrainOutput, ClassificationOutput,
// RegressionOutput, and a sequence output for language models), each with the MetricInput the
// metrics read from it. A user-defined output works too: give it `MetricInput metric_input()`.
#include <concepts>
#include <utility>

#include "optim/gradients_params.h"
#include "train/metric/metric.h"

namespace ember::train {

// loss [1] (the mean over the batch), output [n, classes] logits, targets [n] class ids.
struct ClassificationOutput {
  Tensor<1> loss;
  Tensor<2> output;
  Tensor<1, Int> targets;
  MetricInput metric_input() const;
};

// loss [1], output [n, d] predictions, targets [n, d].
struct RegressionOutput {
  Tensor<1> loss;
  Tensor<2> output;
  Tensor<2> targets;
  MetricInput metric_input() const;
};

// loss [1], output [batch, length, vocabulary] logits, targets [batch, length] token ids;
// positions whose target is pad_token are not counted (accuracy, perplexity). The metrics see
// the batch * length positions as items.
struct SequenceOutput {
  Tensor<1> loss;
  Tensor<3> output;
  Tensor<2, Int> targets;
  int64_t pad_token = -1;  // -1: no padding
  MetricInput metric_input() const;
};

template <class O>
concept StepOutput = requires(const O& o) {
  { o.metric_input() } -> std::same_as<MetricInput>;
};

// A training step's gradients (by parameter) and its output (Burn's TrainOutput).
template <StepOutput O>
struct TrainOutput {
  optim::GradientsParams grads;
  O item;

  // The gradients of `module`'s parameters from `grads` (what loss.backward() returned).
  template <nn::Module M>
  TrainOutput(const M& module, const Gradients& grads, O item)
      : grads(optim::GradientsParams::from_grads(grads, module)), item(std::move(item)) {}
  TrainOutput(optim::GradientsParams grads, O item)
      : grads(std::move(grads)), item(std::move(item)) {}
};

}  // namespace ember::train
