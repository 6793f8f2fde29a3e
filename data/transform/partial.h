#pragma once
// PartialDataset (Burn's PartialDataset): the items [start, end) of the input, and the usual
// ways of cutting a dataset with it: into n near-equal chunks, or into a training and a
// validation part. Shuffle first (ShuffledDataset) when the input is ordered by class.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "ir/error.h"

namespace ember::data {

template <class Item>
class PartialDataset : public Dataset<Item> {
 public:
  // Throws ember::Error unless start <= end <= len.
  PartialDataset(DatasetPtr<Item> dataset, size_t start, size_t end)
      : dataset_(std::move(dataset)), start_(start), end_(end) {
    if (start > end || end > dataset_->len()) {
      throw Error("PartialDataset: range [" + std::to_string(start) + ", " + std::to_string(end) +
                  ") does not fit a dataset of " + std::to_string(dataset_->len()) + " items");
    }
  }

  std::optional<Item> get(size_t index) const override {
    if (index >= len()) return std::nullopt;
    return dataset_->get(start_ + index);
  }
  size_t len() const override { return end_ - start_; }

  // `parts` consecutive chunks covering the dataset, the first len % parts one item longer.
  static std::vector<std::shared_ptr<PartialDataset>> split(const DatasetPtr<Item>& dataset,
                                                            size_t parts) {
    if (parts == 0) throw Error("PartialDataset::split: parts must be at least 1");
    const size_t n = dataset->len(), base = n / parts, extra = n % parts;
    std::vector<std::shared_ptr<PartialDataset>> out;
    size_t start = 0;
    for (size_t p = 0; p < parts; ++p) {
      size_t end = start + base + (p < extra ? 1 : 0);
      out.push_back(std::make_shared<PartialDataset>(dataset, start, end));
      start = end;
    }
    return out;
  }

  // The first round(len * (1 - valid_ratio)) items for training, the rest for validation.
  static std::pair<std::shared_ptr<PartialDataset>, std::shared_ptr<PartialDataset>>
  train_valid_split(const DatasetPtr<Item>& dataset, double valid_ratio) {
    if (!(valid_ratio >= 0 && valid_ratio <= 1)) {
      throw Error("PartialDataset::train_valid_split: valid_ratio " + std::to_string(valid_ratio) +
                  " is not in [0, 1]");
    }
    const size_t n = dataset->len();
    const auto train =
        static_cast<size_t>(std::llround(static_cast<double>(n) * (1 - valid_ratio)));
    return {std::make_shared<PartialDataset>(dataset, 0, train),
            std::make_shared<PartialDataset>(dataset, train, n)};
  }

 private:
  DatasetPtr<Item> dataset_;
  size_t start_, end_;
};

}  // namespace ember::data
