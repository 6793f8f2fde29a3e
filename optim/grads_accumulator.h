#pragma once
// GradientsAccumulator: sums the gradients of several backward passes by ParamId (Burn's
// GradientsAccumulator), for micro-batching: with a loss that sums over the batch, k accumulated
// micro-batches give the gradients of the whole batch; with a mean loss, k times them.
#include <cstdint>

#include "optim/gradients_params.h"

namespace ember::optim {

class GradientsAccumulator {
 public:
  // Adds every gradient of `grads` to the sum for its id (ember::Error when the shapes differ).
  // Recorded as lazy ops, outside the tape.
  void accumulate(const GradientsParams& grads);
  // The sums so far; the accumulator starts again empty.
  GradientsParams grads();
  // Backward passes accumulated since the last grads().
  int64_t count() const { return count_; }

 private:
  GradientsParams sum_;
  int64_t count_ = 0;
};

}  // namespace ember::optim
