#pragma once
// WindowsDataset (Burn's WindowsDataset): every run of `size` consecutive items of the input,
// overlapping (item i is input items i .. i + size - 1), for sequence models on time series.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "ir/error.h"

namespace ember::data {

template <class Item>
class WindowsDataset : public Dataset<std::vector<Item>> {
 public:
  WindowsDataset(DatasetPtr<Item> dataset, size_t size)
      : dataset_(std::move(dataset)), size_(size) {
    if (size == 0) throw Error("WindowsDataset: the window size must be at least 1");
  }

  std::optional<std::vector<Item>> get(size_t index) const override {
    if (index >= len()) return std::nullopt;
    std::vector<Item> window;
    window.reserve(size_);
    for (size_t i = index; i < index + size_; ++i) {
      std::optional<Item> item = dataset_->get(i);
      if (!item) return std::nullopt;
      window.push_back(std::move(*item));
    }
    return window;
  }
  // No window when the input is shorter than one.
  size_t len() const override {
    const size_t n = dataset_->len();
    return n >= size_ ? n - size_ + 1 : 0;
  }

 private:
  DatasetPtr<Item> dataset_;
  size_t size_;
};

}  // namespace ember::data
