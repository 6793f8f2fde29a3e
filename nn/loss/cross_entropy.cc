#include "nn/loss/cross_entropy.h"

#include <string>

namespace ember::nn {

namespace {

constexpr const char* kName = "CrossEntropyLoss";

void check_inputs(const Tensor<2>& scores, const Tensor<1, Int>& targets,
                  const std::optional<std::vector<double>>& weights) {
  detail::check_dim_size(kName, targets.raw(), 0, scores.shape()[0], "targets (one per sample)");
  if (weights && static_cast<int64_t>(weights->size()) != scores.shape()[1]) {
    detail::throw_layer_error(kName, std::to_string(weights->size()) + " class weights for " +
                                         scores.raw().type().to_string() + " scores");
  }
}

// 1 where the target is a padding token, as floats [batch, 1].
Tensor<2> padding_mask(const Tensor<2, Int>& targets, const std::vector<int64_t>& pads) {
  Tensor<2, Bool> pad = targets.equal_elem(pads[0]);
  for (size_t i = 1; i < pads.size(); ++i) pad = pad.bool_or(targets.equal_elem(pads[i]));
  return pad.float_();
}

}  // namespace

CrossEntropyLoss::Terms CrossEntropyLoss::terms(const Tensor<2>& scores,
                                                const Tensor<1, Int>& targets) const {
  check_inputs(scores, targets, weights);
  const int64_t classes = scores.shape()[1];
  Tensor<2, Int> y = targets.unsqueeze_dim(1);
  std::optional<Tensor<2>> keep;  // 1 for samples that count
  if (pad_tokens && !pad_tokens->empty()) {
    Tensor<2> pad = padding_mask(y, *pad_tokens);
    keep = 1.0 - pad;
    y = y.mask_fill(pad.bool_(), 0);  // padding targets may be out of range (-100)
  }
  std::optional<Tensor<2>> w;  // [1, classes]
  if (weights) {
    w = Tensor<1>::from_data(TensorData(*weights), scores.device())
            .cast(scores.dtype())
            .unsqueeze_dim(0);
  }
  // The target's log-probability as a masked sum over the row (not a gather): a reduction over
  // the same rows as log_softmax's, so fusion computes both in one row kernel. The mask is
  // recorded before log_softmax so the kernel that stores it (autodiff keeps it) comes first.
  // Masked entries are selected away, never multiplied (a log-probability may be -inf).
  Tensor<2, Int> classes_row =
      Tensor<1, Int>::arange(0, classes, scores.device()).cast(y.dtype()).unsqueeze_dim(0);
  Tensor<2, Bool> other_class = classes_row.not_equal(y);
  Tensor<2> log_p = logits ? activation::log_softmax(scores, 1) : scores.log();
  Tensor<2> cost = -log_p.mask_fill(other_class, 0.0).sum_dim(1);
  std::optional<Tensor<2>> w_y;  // [batch, 1]
  if (w) {
    w_y = w->expand<2>(scores.shape()).gather(1, y);
    cost = cost * *w_y;
  }
  if (smoothing && *smoothing > 0) {
    Tensor<2> all = w ? log_p * *w : log_p;
    cost = cost * (1 - *smoothing) - all.sum_dim(1) * (*smoothing / static_cast<double>(classes));
  }
  if (keep) {
    cost = cost * *keep;
    w_y = w_y ? *w_y * *keep : *keep;
  }
  return {cost, w_y};
}

Tensor<1> CrossEntropyLoss::forward_no_reduction(const Tensor<2>& scores,
                                                 const Tensor<1, Int>& targets) const {
  return terms(scores, targets).cost.reshape<1>(Shape{-1});
}

Tensor<1> CrossEntropyLoss::forward(const Tensor<2>& scores, const Tensor<1, Int>& targets) const {
  Terms t = terms(scores, targets);
  switch (reduction) {
    case Reduction::Sum:
      return t.cost.sum();
    case Reduction::BatchMean:
      return t.cost.sum() / static_cast<double>(scores.shape()[0]);
    case Reduction::Mean:
      break;
  }
  if (!t.weight) return t.cost.mean();
  return t.cost.sum() / t.weight->sum();
}

void CrossEntropyLoss::display_attributes(Attributes& a) const {
  a.add("logits", logits);
  if (pad_tokens) a.add("pad_tokens", *pad_tokens);
  if (weights) a.add("weights", *weights);
  if (smoothing) a.add("smoothing", *smoothing);
}

CrossEntropyLoss CrossEntropyLossConfig::init() const {
  if (smoothing && !(*smoothing >= 0 && *smoothing <= 1)) {
    detail::throw_layer_error("CrossEntropyLossConfig",
                              "smoothing must be in [0, 1], got " + std::to_string(*smoothing));
  }
  if (weights) {
    for (double w : *weights) {
      if (!(w >= 0)) {
        detail::throw_layer_error("CrossEntropyLossConfig", "class weights must not be negative");
      }
    }
  }
  CrossEntropyLoss l;
  l.pad_tokens = pad_tokens;
  l.weights = weights;
  l.smoothing = smoothing;
  l.logits = logits;
  l.reduction = reduction;
  return l;
}

}  // namespace ember::nn
