#pragma once
// Batches MNIST items into device tensors (the Burn guide's MnistBatcher): images scaled to
// [0, 1] and standardised with the data set's mean and deviation, and the labels.
#include <vector>

#include "data/batcher.h"
#include "data/mnist_dataset.h"
#include "frontend/tensor.h"

namespace ember::data {

struct MnistBatch {
  Tensor<3> images;        // [batch, 28, 28], (pixel / 255 - mean) / std
  Tensor<1, Int> targets;  // [batch], the labels
};

// Fashion-MNIST's pixel mean and deviation (of pixel / 255 over the training split); the Burn
// guide's MNIST values are 0.1307 and 0.3081.
inline constexpr float kFashionMnistMean = 0.2860f;
inline constexpr float kFashionMnistStd = 0.3530f;

class MnistBatcher : public Batcher<MnistItem, MnistBatch> {
 public:
  explicit MnistBatcher(float mean = kFashionMnistMean, float std = kFashionMnistStd)
      : mean_(mean), std_(std) {}

  // Normalises on the host and uploads each tensor once: one copy per batch, no device op.
  MnistBatch batch(std::vector<MnistItem> items, const Device& device) const override;

 private:
  float mean_, std_;
};

}  // namespace ember::data
