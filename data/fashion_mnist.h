#pragma once
// Loader for MNIST-layout data sets (Fashion-MNIST, MNIST): a directory holding the four
// gzip-compressed IDX files under their original names.
#include <string>

#include "data/idx.h"

namespace ember::data {

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* kFashionMnistDebianDir = "/usr/share/datasets/fashion-mnist";
inline constexpr int64_t kMnistSide = 28;
inline constexpr int kMnistClasses = 10;

struct MnistSplit {
  IdxArray images;  // [N, 28, 28]
  IdxArray labels;  // [N], each < kMnistClasses
};

// $EMBER_FASHION_MNIST_DIR when set and non-empty, else kFashionMnistDebianDir.
std::string default_fashion_mnist_dir();

// Reads train-{images-idx3,labels-idx1}-ubyte.gz (train) or t10k-... (test) from dir. Throws
// ember::Error naming the file when a file is unreadable, images are not [N, 28, 28], labels are
// not [N] with the images' N, or a label is not below kMnistClasses.
MnistSplit load_mnist_split(const std::string& dir, bool train);

}  // namespace ember::data
