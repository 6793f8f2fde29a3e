#include "data/mnist_dataset.h"

#include <cstring>

namespace ember::data {

MnistDataset::MnistDataset(MnistSplit split)
    : split_(std::make_shared<const MnistSplit>(std::move(split))) {}

MnistDataset MnistDataset::train(const std::string& dir) {
  return MnistDataset(load_mnist_split(dir, true));
}

MnistDataset MnistDataset::test(const std::string& dir) {
  return MnistDataset(load_mnist_split(dir, false));
}

size_t MnistDataset::len() const { return static_cast<size_t>(split_->labels.numel()); }

std::optional<MnistItem> MnistDataset::get(size_t index) const {
  if (index >= len()) return std::nullopt;
  MnistItem item;
  std::memcpy(item.image.data(), split_->images.data.data() + index * kMnistPixels, kMnistPixels);
  item.label = split_->labels.data[index];
  return item;
}

}  // namespace ember::data
