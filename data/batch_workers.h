#pragma once
// One epoch of a data loader: worker threads build the plan's batches ahead of the consumer and
// hand them over in plan order. A worker claims the lowest batch not yet claimed, but only
// within `window` batches of the one the consumer waits for (bounded prefetch: at most `window`
// batches exist at once); finished batches wait in a reorder buffer, so the consumer sees the
// same sequence whatever the number of workers or their timing. An exception thrown while
// building a batch travels in that batch's place and is rethrown by next() once; the epoch ends
// there. The destructor stops and joins every worker, so no thread outlives its epoch, and the
// loader stops the workers of the epochs still running when it goes (stop_workers).
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "data/batch_plan.h"
#include "data/batcher.h"
#include "data/dataset.h"

namespace ember::data {

// What the loader's epochs share: the dataset, the batcher and the device.
template <class Item, class Batch>
struct BatchSource {
  std::shared_ptr<const Dataset<Item>> dataset;
  std::shared_ptr<const Batcher<Item, Batch>> batcher;
  Device device;

  // Reads the items of `indices` and batches them. A dataset that has no item at an index it
  // counted is a broken dataset: named, never skipped (that would change the batch sizes).
  Batch build(const std::vector<size_t>& indices) const {
    std::vector<Item> items;
    items.reserve(indices.size());
    for (size_t i : indices) {
      std::optional<Item> item = dataset->get(i);
      if (!item) {
        throw Error("data loader: the dataset has no item " + std::to_string(i) +
                    " though its len is " + std::to_string(dataset->len()));
      }
      items.push_back(std::move(*item));
    }
    return batcher->batch(std::move(items), device);
  }
};

template <class Item, class Batch>
class BatchWorkers {
 public:
  BatchWorkers(BatchSource<Item, Batch> source, BatchPlan plan, size_t workers, size_t window)
      : source_(std::move(source)),
        plan_(std::move(plan)),
        batches_(plan_.num_batches()),
        window_(std::max<size_t>(window, 1)) {
    threads_.reserve(workers);
    try {
      for (size_t w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
    } catch (...) {  // the system refused a thread: the ones started must not outlive us
      join_all();
      throw;
    }
  }
  ~BatchWorkers() { join_all(); }
  BatchWorkers(const BatchWorkers&) = delete;
  BatchWorkers& operator=(const BatchWorkers&) = delete;

  size_t num_batches() const { return batches_; }

  // The next batch in plan order, waiting for a worker if it is not ready; nothing at the end of
  // the epoch and after an error was rethrown.
  std::optional<Batch> next() {
    Slot slot;
    size_t k = 0;
    bool build_here = false;
    {
      std::unique_lock lock(mutex_);
      if (finished_ || next_yield_ >= batches_) return std::nullopt;
      // Once the workers are stopped (stop_workers), the batches none of them claimed are
      // built here.
      ready_cv_.wait(lock, [&] {
        return ready_.count(next_yield_) != 0 || (stopping_ && next_yield_ >= next_claim_);
      });
      k = next_yield_++;
      if (auto node = ready_.extract(k)) {
        slot = std::move(node.mapped());
      } else {
        build_here = true;
        next_claim_ = next_yield_;
      }
    }
    work_cv_.notify_all();
    if (build_here) slot = build(k);
    if (auto* error = std::get_if<std::exception_ptr>(&slot)) {
      finish();
      std::rethrow_exception(*error);
    }
    return std::move(std::get<Batch>(slot));
  }

  // Stops and joins the worker threads (their current batches are kept); next() goes on
  // building the rest of the epoch itself. The loader calls it when it goes, so that no thread
  // outlives it even where an epoch's iterator does.
  void stop_workers() {
    stop();
    std::lock_guard lock(join_mutex_);
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  using Slot = std::variant<std::monostate, Batch, std::exception_ptr>;

  Slot build(size_t k) const {
    try {
      return source_.build(plan_.batch(k));
    } catch (...) {
      return std::current_exception();
    }
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    ready_cv_.notify_all();
  }

  // After an error: the epoch ends and the workers exit.
  void finish() {
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    stop();
  }

  void join_all() { stop_workers(); }

  // The next batch this worker should build, or nothing when it should exit.
  std::optional<size_t> claim() {
    std::unique_lock lock(mutex_);
    work_cv_.wait(lock, [&] {
      return stopping_ || next_claim_ >= batches_ || next_claim_ < next_yield_ + window_;
    });
    if (stopping_ || next_claim_ >= batches_) return std::nullopt;
    return next_claim_++;
  }

  void work() {
    while (std::optional<size_t> k = claim()) {
      Slot slot = build(*k);
      {
        std::lock_guard lock(mutex_);
        ready_.emplace(*k, std::move(slot));
      }
      ready_cv_.notify_one();
    }
  }

  const BatchSource<Item, Batch> source_;
  const BatchPlan plan_;
  const size_t batches_, window_;
  std::mutex mutex_, join_mutex_;
  std::condition_variable work_cv_;   // a batch may be claimed, or stop
  std::condition_variable ready_cv_;  // a batch is ready
  std::map<size_t, Slot> ready_;      // built, not yet taken, by batch number
  size_t next_claim_ = 0, next_yield_ = 0;
  bool stopping_ = false, finished_ = false;
  std::vector<std::thread> threads_;  // last: started once the state above exists
};

}  // namespace ember::data
