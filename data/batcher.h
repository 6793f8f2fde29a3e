#pragma once
// The Batcher interface (Burn's Batcher trait): turns a list of dataset items into one batch of
// tensors on a device. The data loader calls it on its worker threads, so the upload of one
// batch overlaps the model's work on the previous one; implementations must be safe to call
// from several threads at once (building tensors with Tensor::from_data is).
#include <vector>

#include "frontend/device.h"

namespace ember::data {

template <class Item, class Batch>
class Batcher {
 public:
  virtual ~Batcher() = default;
  virtual Batch batch(std::vector<Item> items, const Device& device) const = 0;
};

}  // namespace ember::data
