#include "data/mnist_batcher.h"

#include <array>

namespace ember::data {

MnistBatch MnistBatcher::batch(std::vector<MnistItem> items, const Device& device) const {
  const auto n = static_cast<int64_t>(items.size());
  // One table lookup per pixel: the 256 byte values, normalised once.
  std::array<float, 256> value;
  for (int v = 0; v < 256; ++v) value[v] = (static_cast<float>(v) / 255.0f - mean_) / std_;
  std::vector<float> pixels(static_cast<size_t>(n * kMnistPixels));
  std::vector<int32_t> labels(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    float* out = pixels.data() + i * kMnistPixels;
    for (int64_t p = 0; p < kMnistPixels; ++p) out[p] = value[items[i].image[p]];
    labels[i] = items[i].label;
  }
  return {Tensor<3>::from_data(TensorData(pixels, Shape{n, kMnistSide, kMnistSide}), device),
          Tensor<1, Int>::from_data(TensorData(labels, Shape{n}), device)};
}

}  // namespace ember::data
