#include "data/image_batcher.h"

#include <string>

#include "ir/error.h"

namespace ember::data {
namespace {

std::string dims(const Image& img) {
  return std::to_string(img.height) + "x" + std::to_string(img.width) + "x" +
         std::to_string(img.channels);
}

// The 256 values a byte of channel c becomes: one lookup per pixel instead of a divide.
std::vector<float> channel_tables(int64_t channels, const std::vector<float>& mean,
                                  const std::vector<float>& std) {
  std::vector<float> table(static_cast<size_t>(channels) * 256);
  for (int64_t c = 0; c < channels; ++c) {
    const float m = mean.empty() ? 0.0f : mean[c], s = std.empty() ? 1.0f : std[c];
    for (int v = 0; v < 256; ++v) table[c * 256 + v] = (static_cast<float>(v) / 255.0f - m) / s;
  }
  return table;
}

}  // namespace

ImageClassificationBatcher::ImageClassificationBatcher(std::vector<float> mean,
                                                       std::vector<float> std)
    : mean_(std::move(mean)), std_(std::move(std)) {
  if (mean_.size() != std_.size()) {
    throw Error("ImageClassificationBatcher: " + std::to_string(mean_.size()) + " means but " +
                std::to_string(std_.size()) + " deviations");
  }
}

ImageBatch ImageClassificationBatcher::batch(std::vector<ImageDatasetItem> items,
                                             const Device& device) const {
  if (items.empty()) throw Error("ImageClassificationBatcher: an empty batch");
  const Image& first = items.front().image;
  const int64_t n = static_cast<int64_t>(items.size()), c = first.channels, h = first.height,
                w = first.width;
  if (!mean_.empty() && static_cast<int64_t>(mean_.size()) != c) {
    throw Error("ImageClassificationBatcher: " + std::to_string(mean_.size()) +
                " channel means for images of " + std::to_string(c) + " channels");
  }
  const std::vector<float> table = channel_tables(c, mean_, std_);
  std::vector<float> pixels(static_cast<size_t>(n * c * h * w));
  std::vector<int32_t> labels(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Image& img = items[i].image;
    if (img.channels != c || img.height != h || img.width != w) {
      throw Error("ImageClassificationBatcher: " + items[i].image_path + " is " + dims(img) +
                  ", the batch's first image " + dims(first));
    }
    const auto* label = std::get_if<ImageLabel>(&items[i].annotation);
    if (label == nullptr) {
      throw Error("ImageClassificationBatcher: " + items[i].image_path + " has no single label");
    }
    labels[i] = static_cast<int32_t>(label->label);
    // Channels last in the file, channels first in the tensor.
    float* out = pixels.data() + i * c * h * w;
    for (int64_t p = 0; p < h * w; ++p) {
      for (int64_t k = 0; k < c; ++k) out[k * h * w + p] = table[k * 256 + img.pixels[p * c + k]];
    }
  }
  return {Tensor<4>::from_data(TensorData(pixels, Shape{n, c, h, w}), device),
          Tensor<1, Int>::from_data(TensorData(labels, Shape{n}), device)};
}

}  // namespace ember::data
