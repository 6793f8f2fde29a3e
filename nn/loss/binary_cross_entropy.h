#pragma once
// Binary cross-entropy (Burn's nn::loss::BinaryCrossEntropyLoss; PyTorch's nn.BCELoss, and
// nn.BCEWithLogitsLoss when `logits`): predictions [batch] or [batch, classes] (multi-label)
// against 0/1 targets of the same shape,
//   -(t * log p + (1 - t) * log(1 - p)),
// with targets smoothed to t * (1 - a) + a / 2 and per-class weights multiplying the last dim.
// From probabilities the logs are clamped at -100 as PyTorch; from logits it is computed with
// log_sigmoid, exact for any logit.
#include <optional>
#include <vector>

#include "frontend/activation.h"
#include "nn/config.h"
#include "nn/loss/check.h"
#include "nn/loss/reduction.h"
#include "nn/module.h"

namespace ember::nn {

class BinaryCrossEntropyLoss {
 public:
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = false;
  Reduction reduction = Reduction::Mean;

  template <int D>
  Tensor<D> forward_no_reduction(const Tensor<D>& pred, const Tensor<D, Int>& targets) const {
    static_assert(D == 1 || D == 2, "BinaryCrossEntropyLoss: [batch] or [batch, classes]");
    detail::check_same_shape("BinaryCrossEntropyLoss", pred.raw(), targets.raw());
    Tensor<D> t = targets.float_().cast(pred.dtype());
    if (smoothing) t = t * (1 - *smoothing) + *smoothing / 2;
    Tensor<D> log_p = logits ? activation::log_sigmoid(pred) : pred.log().clamp_min(-100.0);
    Tensor<D> log_q =
        logits ? activation::log_sigmoid(-pred) : (1.0 - pred).log().clamp_min(-100.0);
    Tensor<D> loss = -(t * log_p + (1.0 - t) * log_q);
    if (weights) loss = loss * class_weights<D>(pred);
    return loss;
  }
  template <int D>
  Tensor<1> forward(const Tensor<D>& pred, const Tensor<D, Int>& targets) const {
    return reduce_loss(forward_no_reduction(pred, targets), reduction);
  }

  void display_attributes(Attributes& a) const {
    a.add("logits", logits);
    if (weights) a.add("weights", *weights);
    if (smoothing) a.add("smoothing", *smoothing);
  }
  EMBER_MODULE(BinaryCrossEntropyLoss)

 private:
  // The weights as [1, classes] (or [classes] for a [batch] input with one weight).
  template <int D>
  Tensor<D> class_weights(const Tensor<D>& pred) const {
    int64_t classes = D == 2 ? pred.shape()[1] : 1;
    if (static_cast<int64_t>(weights->size()) != classes) {
      detail::throw_layer_error("BinaryCrossEntropyLoss",
                                std::to_string(weights->size()) + " class weights for " +
                                    pred.raw().type().to_string() + " predictions");
    }
    auto w = Tensor<1>::from_data(TensorData(*weights), pred.device()).cast(pred.dtype());
    return w.template unsqueeze<D>();
  }
};

struct BinaryCrossEntropyLossConfig {
  std::optional<std::vector<double>> weights;
  std::optional<double> smoothing;
  bool logits = false;
  Reduction reduction = Reduction::Mean;
  BinaryCrossEntropyLossConfig() = default;
  BinaryCrossEntropyLoss init() const {
    if (smoothing && !(*smoothing >= 0 && *smoothing <= 1)) {
      detail::throw_layer_error("BinaryCrossEntropyLossConfig",
                                "smoothing must be in [0, 1], got " + std::to_string(*smoothing));
    }
    BinaryCrossEntropyLoss l;
    l.weights = weights;
    l.smoothing = smoothing;
    l.logits = logits;
    l.reduction = reduction;
    return l;
  }
  EMBER_CONFIG(BinaryCrossEntropyLossConfig, weights, smoothing, logits, reduction)
};

}  // namespace ember::nn
