#pragma once
// Batches image-classification items (ImageFolderDataset's, with an ImageLabel) into device
// tensors the way vision models take them: images [batch, channels, height, width] as floats,
// pixel / 255 standardised per channel, and the labels. Every image of a batch must have the
// same size and channel count.
#include <vector>

#include "data/batcher.h"
#include "data/image_folder.h"
#include "frontend/tensor.h"

namespace ember::data {

struct ImageBatch {
  Tensor<4> images;        // [batch, channels, height, width]
  Tensor<1, Int> targets;  // [batch]
};

class ImageClassificationBatcher : public Batcher<ImageDatasetItem, ImageBatch> {
 public:
  // Per-channel mean and deviation of pixel / 255 (empty: 0 and 1, the pixels in [0, 1]).
  ImageClassificationBatcher(std::vector<float> mean = {}, std::vector<float> std = {});

  // Throws ember::Error naming the image when its size, channels or annotation differ from the
  // batch's first (or the mean and deviation's channel count).
  ImageBatch batch(std::vector<ImageDatasetItem> items, const Device& device) const override;

 private:
  std::vector<float> mean_, std_;
};

}  // namespace ember::data
