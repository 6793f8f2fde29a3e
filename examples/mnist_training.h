#pragma once
// What the Fashion-MNIST examples share: the datasets and their loaders (data::MnistDataset,
// data::DataLoader), a progress bar, and the test accuracy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/dataloader.h"
#include "data/mnist_batcher.h"
#include "data/mnist_dataset.h"
#include "data/transform/partial.h"
#include "nn/nn.h"

namespace mnist_training {

using namespace ember;

// The data: Fashion-MNIST's splits as datasets (the bytes of the files, on the host), batched by
// data::MnistBatcher (pixels scaled to [0, 1] and centred with the data set's mean and
// deviation) on the loader's worker threads; each batch is uploaded as it is built, so no
// device limit on buffer size applies.
struct MnistData {
  std::shared_ptr<data::MnistDataset> train, test;
};

inline MnistData load_mnist(const std::string& dir) {
  return {std::make_shared<data::MnistDataset>(data::MnistDataset::train(dir)),
          std::make_shared<data::MnistDataset>(data::MnistDataset::test(dir))};
}

constexpr int64_t kPixels = data::kMnistPixels;
using Batch = data::MnistBatch;

// Batches of `batch` training images, reshuffled every epoch from `seed`, built by `workers`
// threads ahead of the training step.
inline std::shared_ptr<data::DataLoader<Batch>> train_loader(const MnistData& d, int64_t batch,
                                                             size_t workers, const Device& dev,
                                                             uint64_t seed = 42) {
  return data::DataLoaderBuilder<data::MnistItem, Batch>(std::make_shared<data::MnistBatcher>())
      .batch_size(static_cast<size_t>(batch))
      .shuffle(seed)
      .num_workers(workers)
      .build(d.train, dev);
}

// [b, 28, 28] images as the [b, 784] rows a multilayer perceptron takes.
inline Tensor<2> flat(const Tensor<3>& images) {
  return images.reshape<2>(Shape{images.shape()[0], kPixels});
}

class ProgressBar {
 public:
  ProgressBar(int epoch, int epochs, int64_t total)
      : epoch_(epoch), epochs_(epochs), total_(total), tty_(isatty(STDOUT_FILENO) != 0) {}

  void update(int64_t done, double loss, double seconds) {
    bool last = done == total_;
    int64_t tenth = std::max<int64_t>(1, total_ / 10);
    if (!tty_ && !last && done % tenth != 0) return;  // logs get a line per 10%
    constexpr int kWidth = 30;
    int filled = static_cast<int>(kWidth * done / total_);
    std::printf("%sepoch %d/%d [%s%s] %lld/%lld loss %.4f %.1f s%s", tty_ ? "\r" : "", epoch_,
                epochs_, std::string(filled, '#').c_str(),
                std::string(kWidth - filled, '.').c_str(), static_cast<long long>(done),
                static_cast<long long>(total_), loss, seconds, tty_ && !last ? "" : "\n");
    std::fflush(stdout);
  }

 private:
  int epoch_, epochs_;
  int64_t total_;
  bool tty_;
};

// The share of the first `images` test images (0: all) whose argmax of logits(images [b, 28, 28])
// is their label, in batches of 500 built by one worker thread.
template <class Logits>
double test_accuracy(const Logits& logits, const MnistData& d, int64_t images, const Device& dev) {
  NoGradGuard no_grad;
  const auto n = static_cast<size_t>(d.test->len());
  const size_t count = images > 0 ? std::min(static_cast<size_t>(images), n) : n;
  auto first = std::make_shared<data::PartialDataset<data::MnistItem>>(d.test, 0, count);
  auto loader =
      data::DataLoaderBuilder<data::MnistItem, Batch>(std::make_shared<data::MnistBatcher>())
          .batch_size(500)
          .num_workers(1)
          .build(first, dev);
  int64_t correct = 0;
  auto it = loader->iter();
  while (std::optional<Batch> b = it->next()) {
    auto hits = logits(b->images).argmax(1).equal(b->targets.unsqueeze_dim(1)).int_().sum();
    correct += hits.template into_scalar<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(count);
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace mnist_training
