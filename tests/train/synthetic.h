#pragma once
// The tiny synthetic task of the train tests: 3-class points in 4 dimensions from a fixed
// generator, a linear classifier with dropout, and an in-memory loader with the data loader's
// interface (iter, next, num_batches, set_epoch: the order of an epoch depends only on the seed
// and the epoch).
#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "frontend/random_state.h"
#include "nn/nn.h"
#include "train/output.h"

namespace ember::train::testing {

constexpr int64_t kFeatures = 4, kClasses = 3;

struct Batch {
  Tensor<2> x;       // [b, 4]
  Tensor<1, Int> y;  // [b]
  std::vector<double> host_x;
  std::vector<int32_t> host_y;
};

struct HostData {
  std::vector<double> x;  // [n, 4]
  std::vector<int32_t> y;
  int64_t n = 0;
};

// Class c is centred at a fixed point; points are spread around it.
inline HostData make_data(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.8);
  const double centres[kClasses][kFeatures] = {{1, 0, 0, 1}, {0, 1, -1, 0}, {-1, -1, 1, 0}};
  HostData d;
  d.n = n;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t c = static_cast<int32_t>(i % kClasses);
    d.y.push_back(c);
    for (int64_t f = 0; f < kFeatures; ++f) d.x.push_back(centres[c][f] + noise(rng));
  }
  return d;
}

class VectorLoader {
 public:
  class Iterator {
   public:
    Iterator(const VectorLoader& loader, std::vector<int64_t> order)
        : loader_(loader), order_(std::move(order)) {}
    std::optional<Batch> next() {
      if (pos_ >= static_cast<int64_t>(order_.size())) return std::nullopt;
      const int64_t b = std::min(loader_.batch_, static_cast<int64_t>(order_.size()) - pos_);
      Batch batch;
      for (int64_t i = 0; i < b; ++i) {
        const int64_t row = order_[static_cast<size_t>(pos_ + i)];
        for (int64_t f = 0; f < kFeatures; ++f) {
          batch.host_x.push_back(loader_.data_.x[static_cast<size_t>(row * kFeatures + f)]);
        }
        batch.host_y.push_back(loader_.data_.y[static_cast<size_t>(row)]);
      }
      pos_ += b;
      batch.x = Tensor<2>::from_data(
          TensorData(batch.host_x, Shape{b, kFeatures}).convert(DType::F32), Device::cpu());
      batch.y = Tensor<1, Int>::from_data(TensorData(batch.host_y, Shape{b}), Device::cpu());
      return batch;
    }

   private:
    const VectorLoader& loader_;
    std::vector<int64_t> order_;
    int64_t pos_ = 0;
  };

  VectorLoader(HostData data, int64_t batch, std::optional<uint64_t> shuffle_seed)
      : data_(std::move(data)), batch_(batch), seed_(shuffle_seed) {}
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t num_batches() const { return static_cast<size_t>((data_.n + batch_ - 1) / batch_); }
  std::unique_ptr<Iterator> iter() {
    std::vector<int64_t> order(static_cast<size_t>(data_.n));
    for (int64_t i = 0; i < data_.n; ++i) order[static_cast<size_t>(i)] = i;
    if (seed_) {
      std::mt19937_64 rng(*seed_ + epoch_);
      std::shuffle(order.begin(), order.end(), rng);
    }
    ++epoch_;  // without set_epoch, each iter() is the next epoch
    return std::make_unique<Iterator>(*this, std::move(order));
  }

 private:
  HostData data_;
  int64_t batch_;
  std::optional<uint64_t> seed_;
  size_t epoch_ = 0;
};

struct Classifier {
  nn::Linear fc;
  nn::Dropout dropout;

  Tensor<2> forward(const Tensor<2>& x) const { return fc.forward(dropout.forward(x)); }
  ClassificationOutput forward_classification(const Batch& b) const {
    auto logits = forward(b.x);
    auto loss = nn::CrossEntropyLossConfig().init().forward(logits, b.y);
    return {loss, logits, b.y};
  }
  TrainOutput<ClassificationOutput> train_step(const Batch& b) const {
    auto item = forward_classification(b);
    return TrainOutput<ClassificationOutput>(*this, item.loss.backward(), item);
  }
  ClassificationOutput valid_step(const Batch& b) const { return forward_classification(b); }
  EMBER_MODULE(Classifier, fc, dropout)
};

inline Classifier make_classifier(double dropout, uint64_t seed_value = 7) {
  seed(seed_value);
  return {nn::LinearConfig(kFeatures, kClasses).init(Device::cpu()),
          nn::DropoutConfig(dropout).init()};
}

// Every parameter's values, in visiting order.
inline std::vector<float> parameters(const Classifier& m) {
  std::vector<float> out;
  nn::visit_params(m, [&](const std::string&, const auto& p) {
    auto v = p.val().to_data().template to_vec<float>();
    out.insert(out.end(), v.begin(), v.end());
  });
  return out;
}

}  // namespace ember::train::testing
