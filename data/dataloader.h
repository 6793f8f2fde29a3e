#pragma once
// Data loaders (Burn's DataLoader and DataLoaderBuilder): each iter() call is one epoch of
// batches, built from a dataset by a batcher on worker threads ahead of the consumer.
//
//   auto loader = DataLoaderBuilder<Item, Batch>(batcher).batch_size(64).shuffle(42)
//                     .num_workers(2).build(dataset, device);
//   for (auto it = loader->iter(); auto batch = it->next();) { ... }
//
// The batches and their order depend only on the dataset, the batch size, the seed and the
// epoch number, never on the number of workers (see batch_plan.h).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "data/batch_plan.h"
#include "data/batch_workers.h"
#include "data/batcher.h"
#include "data/dataset.h"
#include "ir/error.h"

namespace ember::data {

// How far an epoch has got, for a progress bar or dashboard.
struct Progress {
  size_t items_processed = 0;  // items in the batches next() has returned
  size_t items_total = 0;
};

template <class Batch>
class DataLoaderIterator {
 public:
  virtual ~DataLoaderIterator() = default;
  // The next batch; nothing once the epoch is over. Rethrows, once, an exception raised while
  // building the batch (a dataset or batcher error); the epoch ends there.
  virtual std::optional<Batch> next() = 0;
  virtual Progress progress() const = 0;
};

template <class Batch>
class DataLoader {
 public:
  virtual ~DataLoader() = default;
  // Starts the next epoch: the first call is epoch 0 (or the one set_epoch named), each call
  // after it the one after. Iterators are independent of each other and may outlive the loader,
  // whose destruction stops their worker threads (the rest of such an epoch is built in next()).
  virtual std::unique_ptr<DataLoaderIterator<Batch>> iter() = 0;
  // The epoch the next iter() starts, so a resumed run reproduces that epoch's order.
  virtual void set_epoch(size_t epoch) = 0;
  virtual size_t epoch() const = 0;
  virtual size_t num_items() const = 0;
  virtual size_t num_batches() const = 0;
  // One loader per device, sharing this loader's epochs: loader i yields batches i, i + n,
  // i + 2n, ... of each epoch (n devices) on devices[i]; together, the batches of this loader.
  virtual std::vector<std::shared_ptr<DataLoader<Batch>>> split(
      const std::vector<Device>& devices) const = 0;
};

struct DataLoaderOptions {
  size_t batch_size = 1;
  std::optional<uint64_t> seed;  // shuffle each epoch when set
  size_t num_workers = 0;        // 0: batches are built in next(), on the caller's thread
  size_t prefetch = 0;           // batches built ahead; 0: two per worker
  size_t shard = 0, shards = 1;  // set by split()
};

// The iterator of one epoch: with workers, a BatchWorkers; without, batches built in next().
template <class Item, class Batch>
class BatchDataLoaderIterator : public DataLoaderIterator<Batch> {
 public:
  BatchDataLoaderIterator(BatchSource<Item, Batch> source, BatchPlan plan,
                          const DataLoaderOptions& o)
      : total_(plan.num_items()), batches_(plan.num_batches()), batch_size_(plan.batch_size) {
    if (o.num_workers > 0) {
      size_t window = o.prefetch > 0 ? std::max(o.prefetch, o.num_workers) : 2 * o.num_workers;
      workers_ = std::make_shared<BatchWorkers<Item, Batch>>(std::move(source), std::move(plan),
                                                             o.num_workers, window);
    } else {
      source_ = std::move(source);
      plan_ = std::move(plan);
    }
  }

  std::optional<Batch> next() override {
    std::optional<Batch> batch = workers_ ? workers_->next() : next_here();
    if (batch) yielded_.fetch_add(1);
    return batch;
  }

  // Nothing without workers.
  std::weak_ptr<BatchWorkers<Item, Batch>> workers() const { return workers_; }

  // Every batch but the epoch's last is full.
  Progress progress() const override {
    size_t yielded = yielded_.load();
    return {yielded == batches_ ? total_ : yielded * batch_size_, total_};
  }

 private:
  std::optional<Batch> next_here() {
    if (finished_ || next_ >= plan_.num_batches()) return std::nullopt;
    try {
      return source_.build(plan_.batch(next_++));
    } catch (...) {
      finished_ = true;
      throw;
    }
  }

  const size_t total_, batches_, batch_size_;
  std::shared_ptr<BatchWorkers<Item, Batch>> workers_;
  BatchSource<Item, Batch> source_;
  BatchPlan plan_;
  size_t next_ = 0;
  bool finished_ = false;
  std::atomic<size_t> yielded_{0};
};

template <class Item, class Batch>
class BatchDataLoader : public DataLoader<Batch> {
 public:
  BatchDataLoader(BatchSource<Item, Batch> source, DataLoaderOptions options)
      : source_(std::move(source)), options_(options) {}
  // Stops the worker threads of the epochs still being read; they finish on the caller's thread.
  ~BatchDataLoader() override {
    std::lock_guard lock(epochs_mutex_);
    for (const auto& weak : epochs_) {
      if (auto workers = weak.lock()) workers->stop_workers();
    }
  }

  std::unique_ptr<DataLoaderIterator<Batch>> iter() override {
    size_t epoch = epoch_.fetch_add(1);
    BatchPlan plan = BatchPlan::make(source_.dataset->len(), options_.batch_size, options_.seed,
                                     epoch, options_.shard, options_.shards);
    auto it =
        std::make_unique<BatchDataLoaderIterator<Item, Batch>>(source_, std::move(plan), options_);
    if (auto workers = it->workers().lock()) {
      std::lock_guard lock(epochs_mutex_);
      std::erase_if(epochs_, [](const auto& w) { return w.expired(); });
      epochs_.push_back(workers);
    }
    return it;
  }
  void set_epoch(size_t epoch) override { epoch_.store(epoch); }
  size_t epoch() const override { return epoch_.load(); }
  size_t num_items() const override {
    return BatchPlan::shard_items(source_.dataset->len(), options_.batch_size, options_.shard,
                                  options_.shards);
  }
  size_t num_batches() const override {
    return BatchPlan::shard_batches(source_.dataset->len(), options_.batch_size, options_.shard,
                                    options_.shards);
  }

  std::vector<std::shared_ptr<DataLoader<Batch>>> split(
      const std::vector<Device>& devices) const override {
    if (devices.empty()) throw Error("DataLoader::split: no devices given");
    if (options_.shards != 1) throw Error("DataLoader::split: this loader is already a split");
    std::vector<std::shared_ptr<DataLoader<Batch>>> out;
    for (size_t i = 0; i < devices.size(); ++i) {
      BatchSource<Item, Batch> source = source_;
      source.device = devices[i];
      DataLoaderOptions o = options_;
      o.shard = i;
      o.shards = devices.size();
      auto loader = std::make_shared<BatchDataLoader>(std::move(source), o);
      loader->set_epoch(epoch());
      out.push_back(std::move(loader));
    }
    return out;
  }

 private:
  BatchSource<Item, Batch> source_;
  DataLoaderOptions options_;
  std::atomic<size_t> epoch_{0};
  std::mutex epochs_mutex_;
  std::vector<std::weak_ptr<BatchWorkers<Item, Batch>>> epochs_;  // iterators with workers
};

template <class Item, class Batch>
class DataLoaderBuilder {
 public:
  explicit DataLoaderBuilder(std::shared_ptr<Batcher<Item, Batch>> batcher)
      : batcher_(std::move(batcher)) {}

  DataLoaderBuilder& batch_size(size_t n) {
    options_.batch_size = n;
    return *this;
  }
  // Shuffles every epoch, from `seed` and the epoch number.
  DataLoaderBuilder& shuffle(uint64_t seed) {
    options_.seed = seed;
    return *this;
  }
  DataLoaderBuilder& num_workers(size_t k) {
    options_.num_workers = k;
    return *this;
  }
  // At most `p` batches built ahead of the consumer (at least one per worker).
  DataLoaderBuilder& prefetch(size_t p) {
    options_.prefetch = p;
    return *this;
  }

  std::shared_ptr<DataLoader<Batch>> build(std::shared_ptr<Dataset<Item>> dataset,
                                           const Device& device = Device::default_device()) const {
    if (!batcher_) throw Error("DataLoaderBuilder: no batcher");
    if (!dataset) throw Error("DataLoaderBuilder::build: no dataset");
    if (options_.batch_size == 0) throw Error("DataLoaderBuilder: batch_size must be at least 1");
    return std::make_shared<BatchDataLoader<Item, Batch>>(
        BatchSource<Item, Batch>{std::move(dataset), batcher_, device}, options_);
  }

 private:
  std::shared_ptr<Batcher<Item, Batch>> batcher_;
  DataLoaderOptions options_;
};

}  // namespace ember::data
