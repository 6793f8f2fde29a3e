#pragma once
// What the Fashion-MNIST examples share: the data on the host and its batches, a progress bar,
// and the test accuracy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "data/fashion_mnist.h"
#include "nn/nn.h"

namespace mnist_training {

using namespace ember;

// Images scaled to [0, 1] and centred with Fashion-MNIST's mean and deviation, on the host:
// batches are uploaded as they are used, so no device limit on buffer size applies.
struct HostSet {
  std::vector<float> pixels;  // [n, 784]
  std::vector<int32_t> labels;
  int64_t n = 0;
};

inline HostSet to_host_set(const data::MnistSplit& split) {
  constexpr float kMean = 0.2860f, kStd = 0.3530f;
  HostSet s;
  s.n = split.labels.dims[0];
  s.pixels.resize(split.images.data.size());
  for (size_t i = 0; i < s.pixels.size(); ++i) {
    s.pixels[i] = (split.images.data[i] / 255.0f - kMean) / kStd;
  }
  s.labels.assign(split.labels.data.begin(), split.labels.data.end());
  return s;
}

constexpr int64_t kPixels = data::kMnistSide * data::kMnistSide;

struct Batch {
  Tensor<2> x;       // [b, 784]
  Tensor<1, Int> y;  // [b]
};

inline Batch make_batch(const HostSet& s, const std::vector<int64_t>& order, int64_t first,
                        int64_t b, const Device& dev) {
  std::vector<float> x(b * kPixels);
  std::vector<int32_t> y(b);
  for (int64_t i = 0; i < b; ++i) {
    int64_t row = order[first + i];
    std::memcpy(&x[i * kPixels], &s.pixels[row * kPixels], kPixels * sizeof(float));
    y[i] = s.labels[row];
  }
  return {Tensor<2>::from_data(TensorData(x, Shape{b, kPixels}), dev),
          Tensor<1, Int>::from_data(TensorData(y, Shape{b}), dev)};
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

// The share of the first `images` test images (0: all) whose argmax of logits(x [b, 784]) is
// their label, in batches of 500.
template <class Logits>
double test_accuracy(const Logits& logits, const HostSet& test, int64_t images, const Device& dev) {
  NoGradGuard no_grad;
  images = images > 0 ? std::min(images, test.n) : test.n;
  std::vector<int64_t> order(test.n);
  for (int64_t i = 0; i < test.n; ++i) order[i] = i;
  int64_t correct = 0, seen = 0;
  for (int64_t first = 0; first < images; first += 500) {
    int64_t batch = std::min<int64_t>(500, images - first);
    Batch b = make_batch(test, order, first, batch, dev);
    auto hits = logits(b.x).argmax(1).equal(b.y.unsqueeze_dim(1)).int_().sum();
    correct += hits.template into_scalar<int64_t>();
    seen += batch;
  }
  return static_cast<double>(correct) / static_cast<double>(seen);
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace mnist_training
