#pragma once
// ShuffledDataset (Burn's ShuffledDataset): the input's items in an order drawn once from a
// seed (the same on every platform, see data/random.h). Use it before a PartialDataset split;
// the loader's own shuffle(seed) reshuffles every epoch instead.
#include <optional>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "data/random.h"

namespace ember::data {

template <class Item>
class ShuffledDataset : public Dataset<Item> {
 public:
  ShuffledDataset(DatasetPtr<Item> dataset, uint64_t seed) : dataset_(std::move(dataset)) {
    SplitMix64 rng(seed);
    order_ = random_permutation(dataset_->len(), rng);
  }

  std::optional<Item> get(size_t index) const override {
    if (index >= order_.size()) return std::nullopt;
    return dataset_->get(order_[index]);
  }
  size_t len() const override { return order_.size(); }
  // The input index behind item `index`.
  size_t source_index(size_t index) const { return order_.at(index); }

 private:
  DatasetPtr<Item> dataset_;
  std::vector<size_t> order_;
};

}  // namespace ember::data
