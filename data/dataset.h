#pragma once
// The Dataset interface (Burn's Dataset trait): a fixed number of items, each read by index in
// any order, from any thread. Items are host values; batchers turn them into tensors.
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

#include "ir/error.h"

namespace ember::data {

template <class Item>
class DatasetIterator;
template <class Item>
class Dataset;

// How transforms and loaders hold the datasets they read: shared, never modified.
template <class Item>
using DatasetPtr = std::shared_ptr<const Dataset<Item>>;

template <class Item>
class Dataset {
 public:
  virtual ~Dataset() = default;
  // The item at `index`, or nothing when index >= len(). Readers throw ember::Error naming the
  // file and the item when the item exists but cannot be read. Must be safe to call from
  // several threads at once (the data loader's workers do).
  virtual std::optional<Item> get(size_t index) const = 0;
  virtual size_t len() const = 0;

  bool is_empty() const { return len() == 0; }
  // The item at `index`; throws ember::Error naming `who` when it is out of range.
  Item at(size_t index, const std::string& who = "dataset") const {
    std::optional<Item> item = get(index);
    if (!item) {
      throw Error(who + ": item " + std::to_string(index) + " is out of range (" +
                  std::to_string(len()) + " items)");
    }
    return std::move(*item);
  }
  // Iteration in index order: for (const Item& item : dataset).
  DatasetIterator<Item> begin() const { return DatasetIterator<Item>(this, 0); }
  DatasetIterator<Item> end() const { return DatasetIterator<Item>(this, len()); }
};

// Reads the item when dereferenced (each dereference reads it again), so iterating a dataset
// holds one item at a time.
template <class Item>
class DatasetIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Item;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Item;

  DatasetIterator() = default;
  DatasetIterator(const Dataset<Item>* dataset, size_t index) : dataset_(dataset), index_(index) {}

  Item operator*() const { return dataset_->at(index_, "dataset iterator"); }
  DatasetIterator& operator++() {
    ++index_;
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(const DatasetIterator& o) const { return index_ == o.index_; }

 private:
  const Dataset<Item>* dataset_ = nullptr;
  size_t index_ = 0;
};

}  // namespace ember::data
