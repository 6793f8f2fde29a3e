#include "data/fashion_mnist.h"

#include <cstdlib>
#include <filesystem>

#include "ir/error.h"

namespace ember::data {
namespace {

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

void check_images(const IdxArray& images, const std::string& path) {
  const auto& d = images.dims;
  if (d.size() != 3 || d[1] != kMnistSide || d[2] != kMnistSide) {
    throw Error("load_mnist_split: " + path + ": images have shape " + dims_string(d) +
                ", expected [N, 28, 28]");
  }
}

void check_labels(const IdxArray& labels, int64_t n, const std::string& path) {
  if (labels.dims.size() != 1 || labels.dims[0] != n) {
    throw Error("load_mnist_split: " + path + ": labels have shape " + dims_string(labels.dims) +
                ", expected [" + std::to_string(n) + "] to match the images");
  }
  for (size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= kMnistClasses) {
      throw Error("load_mnist_split: " + path + ": label " + std::to_string(labels.data[i]) +
                  " at index " + std::to_string(i) + " is not below " +
                  std::to_string(kMnistClasses));
    }
  }
}

}  // namespace

std::string default_fashion_mnist_dir() {
  const char* env = std::getenv("EMBER_FASHION_MNIST_DIR");
  return env != nullptr && *env != '\0' ? env : kFashionMnistDebianDir;
}

MnistSplit load_mnist_split(const std::string& dir, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path =
      (std::filesystem::path(dir) / (prefix + "-images-idx3-ubyte.gz")).string();
  const std::string labels_path =
      (std::filesystem::path(dir) / (prefix + "-labels-idx1-ubyte.gz")).string();
  MnistSplit split{read_idx(images_path), read_idx(labels_path)};
  check_images(split.images, images_path);
  check_labels(split.labels, split.images.dims[0], labels_path);
  return split;
}

}  // namespace ember::data
