#pragma once
// Which items each batch of an epoch holds: the epoch's order (shuffled from the seed and the
// epoch number, or the dataset's own order), cut into batches of batch_size (the last may be
// shorter). A loader split across devices keeps every count-th batch from `shard`. The plan
// depends on nothing else, which is why the batches are the same whatever the number of workers.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "data/random.h"

namespace ember::data {

struct BatchPlan {
  std::vector<size_t> order;  // item indices in epoch order
  size_t batch_size = 1;
  size_t shard = 0, shards = 1;

  static BatchPlan make(size_t items, size_t batch_size, std::optional<uint64_t> seed,
                        uint64_t epoch, size_t shard, size_t shards) {
    BatchPlan p{{}, batch_size, shard, shards};
    if (seed) {
      SplitMix64 rng(*seed, epoch);
      p.order = random_permutation(items, rng);
    } else {
      p.order.resize(items);
      for (size_t i = 0; i < items; ++i) p.order[i] = i;
    }
    return p;
  }

  size_t num_batches() const { return shard_batches(order.size(), batch_size, shard, shards); }
  size_t num_items() const { return shard_items(order.size(), batch_size, shard, shards); }
  // The item indices of this shard's k-th batch.
  std::vector<size_t> batch(size_t k) const {
    size_t first = (shard + k * shards) * batch_size;
    size_t last = std::min(order.size(), first + batch_size);
    return {order.begin() + static_cast<std::ptrdiff_t>(first),
            order.begin() + static_cast<std::ptrdiff_t>(last)};
  }

  // Batches of shard `shard` of `shards` over `items` items (every shards-th batch).
  static size_t shard_batches(size_t items, size_t batch_size, size_t shard, size_t shards) {
    size_t total = (items + batch_size - 1) / batch_size;
    return total > shard ? (total - shard + shards - 1) / shards : 0;
  }
  // Items in those batches: all full but maybe the dataset's last batch.
  static size_t shard_items(size_t items, size_t batch_size, size_t shard, size_t shards) {
    size_t batches = shard_batches(items, batch_size, shard, shards);
    if (batches == 0) return 0;
    size_t last_first = (shard + (batches - 1) * shards) * batch_size;
    return (batches - 1) * batch_size + std::min(batch_size, items - last_first);
  }
};

}  // namespace ember::data
