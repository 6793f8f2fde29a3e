#pragma once
// ComposedDataset (Burn's ComposedDataset): several datasets one after the other, as one,
// without copying their items.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "data/dataset.h"

namespace ember::data {

template <class Item>
class ComposedDataset : public Dataset<Item> {
 public:
  explicit ComposedDataset(std::vector<DatasetPtr<Item>> datasets)
      : datasets_(std::move(datasets)) {
    size_t total = 0;
    for (const auto& d : datasets_) ends_.push_back(total += d->len());
  }

  std::optional<Item> get(size_t index) const override {
    // The first dataset whose end lies past the index.
    auto it = std::upper_bound(ends_.begin(), ends_.end(), index);
    if (it == ends_.end()) return std::nullopt;
    const auto d = static_cast<size_t>(it - ends_.begin());
    const size_t start = d == 0 ? 0 : ends_[d - 1];
    return datasets_[d]->get(index - start);
  }
  size_t len() const override { return ends_.empty() ? 0 : ends_.back(); }

 private:
  std::vector<DatasetPtr<Item>> datasets_;
  std::vector<size_t> ends_;  // ends_[d]: items in datasets 0..d
};

}  // namespace ember::data
