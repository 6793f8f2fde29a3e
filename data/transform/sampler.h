#pragma once
// SamplerDataset (Burn's SamplerDataset): `size` items drawn from the input, larger or smaller
// than it, so the size of an epoch is chosen apart from the data. With replacement every draw is
// uniform over the input; without, the draws walk a fresh permutation of the input and take a
// new one when it is used up (no item repeats before every item was drawn). The draws are fixed
// by the seed when the dataset is made, so reading items from several threads in any order gives
// the same items (Burn draws as items are read).
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "data/random.h"
#include "ir/error.h"

namespace ember::data {

template <class Item>
class SamplerDataset : public Dataset<Item> {
 public:
  SamplerDataset(DatasetPtr<Item> dataset, size_t size, bool with_replacement, uint64_t seed)
      : dataset_(std::move(dataset)) {
    const size_t n = dataset_->len();
    if (n == 0 && size > 0) throw Error("SamplerDataset: cannot draw items from an empty dataset");
    SplitMix64 rng(seed);
    indices_.reserve(size);
    while (indices_.size() < size) {
      if (with_replacement) {
        indices_.push_back(rng.below(n));
        continue;
      }
      for (size_t i : random_permutation(n, rng)) {
        if (indices_.size() == size) break;
        indices_.push_back(i);
      }
    }
  }

  // round(len * ratio) items.
  static std::shared_ptr<SamplerDataset> with_ratio(DatasetPtr<Item> dataset, double ratio,
                                                    bool with_replacement, uint64_t seed) {
    if (!(ratio >= 0) || !std::isfinite(ratio)) {
      throw Error("SamplerDataset: ratio " + std::to_string(ratio) + " must be finite and >= 0");
    }
    const auto size =
        static_cast<size_t>(std::llround(static_cast<double>(dataset->len()) * ratio));
    return std::make_shared<SamplerDataset>(std::move(dataset), size, with_replacement, seed);
  }

  std::optional<Item> get(size_t index) const override {
    if (index >= indices_.size()) return std::nullopt;
    return dataset_->get(indices_[index]);
  }
  size_t len() const override { return indices_.size(); }
  size_t source_index(size_t index) const { return indices_.at(index); }

 private:
  DatasetPtr<Item> dataset_;
  std::vector<size_t> indices_;
};

}  // namespace ember::data
