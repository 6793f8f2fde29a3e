#pragma once
// MapperDataset (Burn's MapperDataset): each item of the input through a function, computed
// when the item is read (nothing is cached). The function runs on the loader's worker threads,
// so it must be safe to call concurrently.
#include <functional>
#include <optional>
#include <utility>

#include "data/dataset.h"

namespace ember::data {

template <class In, class Out>
class MapperDataset : public Dataset<Out> {
 public:
  using Mapper = std::function<Out(const In&)>;
  MapperDataset(DatasetPtr<In> dataset, Mapper mapper)
      : dataset_(std::move(dataset)), mapper_(std::move(mapper)) {}

  std::optional<Out> get(size_t index) const override {
    std::optional<In> item = dataset_->get(index);
    if (!item) return std::nullopt;
    return mapper_(*item);
  }
  size_t len() const override { return dataset_->len(); }

 private:
  DatasetPtr<In> dataset_;
  Mapper mapper_;
};

}  // namespace ember::data
