#pragma once
// SelectionDataset (Burn's SelectionDataset): the input's items at a list of indices, in that
// list's order (a subset, a reordering, or both), shuffled from a seed if asked.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "data/random.h"
#include "ir/error.h"

namespace ember::data {

template <class Item>
class SelectionDataset : public Dataset<Item> {
 public:
  // Throws ember::Error naming the first index past the input's end.
  SelectionDataset(DatasetPtr<Item> dataset, std::vector<size_t> indices)
      : dataset_(std::move(dataset)), indices_(std::move(indices)) {
    const size_t n = dataset_->len();
    for (size_t k = 0; k < indices_.size(); ++k) {
      if (indices_[k] >= n) {
        throw Error("SelectionDataset: index " + std::to_string(indices_[k]) + " at position " +
                    std::to_string(k) + " is past the dataset's " + std::to_string(n) + " items");
      }
    }
  }
  // Every item of the input, in its order (shuffle it with shuffle()).
  static std::shared_ptr<SelectionDataset> all(DatasetPtr<Item> dataset) {
    std::vector<size_t> indices(dataset->len());
    for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
    return std::make_shared<SelectionDataset>(std::move(dataset), std::move(indices));
  }

  // Reorders the selection with a permutation drawn from `seed`.
  void shuffle(uint64_t seed) {
    SplitMix64 rng(seed);
    std::vector<size_t> order = random_permutation(indices_.size(), rng);
    std::vector<size_t> shuffled(indices_.size());
    for (size_t k = 0; k < order.size(); ++k) shuffled[k] = indices_[order[k]];
    indices_ = std::move(shuffled);
  }

  std::optional<Item> get(size_t index) const override {
    if (index >= indices_.size()) return std::nullopt;
    return dataset_->get(indices_[index]);
  }
  size_t len() const override { return indices_.size(); }
  const std::vector<size_t>& indices() const { return indices_; }

 private:
  DatasetPtr<Item> dataset_;
  std::vector<size_t> indices_;
};

}  // namespace ember::data
