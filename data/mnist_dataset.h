#pragma once
// MNIST-layout data sets (Fashion-MNIST, MNIST) as a Dataset: the items of one split, read
// once with load_mnist_split and kept as the files' bytes (47 MB for Fashion-MNIST's training
// split); copies of the dataset share them.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "data/dataset.h"
#include "data/fashion_mnist.h"

namespace ember::data {

inline constexpr int64_t kMnistPixels = kMnistSide * kMnistSide;

struct MnistItem {
  std::array<uint8_t, kMnistPixels> image;  // row-major 28x28, 0 (background) to 255
  uint8_t label = 0;                        // < kMnistClasses
};

class MnistDataset : public Dataset<MnistItem> {
 public:
  explicit MnistDataset(MnistSplit split);
  // The training (60000 images for Fashion-MNIST) or test (10000) split of the data set in
  // `dir` (default: Fashion-MNIST, see default_fashion_mnist_dir). Throws ember::Error naming
  // the file as load_mnist_split does.
  static MnistDataset train(const std::string& dir = default_fashion_mnist_dir());
  static MnistDataset test(const std::string& dir = default_fashion_mnist_dir());

  std::optional<MnistItem> get(size_t index) const override;
  size_t len() const override;

 private:
  std::shared_ptr<const MnistSplit> split_;
};

}  // namespace ember::data
