#include "optim/grads_accumulator.h"

#include <utility>

#include "ir/error.h"

namespace ember::optim {

void GradientsAccumulator::accumulate(const GradientsParams& grads) {
  NoGradGuard no_grad;
  for (ParamId id : grads.ids()) {
    RawTensor g = *grads.get_raw(id);
    std::optional<RawTensor> prev = sum_.get_raw(id);
    if (prev && prev->shape() != g.shape()) {
      throw Error("GradientsAccumulator: gradient of parameter " + id.to_string() + " is " +
                  g.shape().to_string() + ", the sum so far " + prev->shape().to_string());
    }
    sum_.register_raw(id, prev ? ops::binary(ir::BinaryFn::Add, *prev, g) : g);
  }
  ++count_;
}

GradientsParams GradientsAccumulator::grads() {
  GradientsParams out = std::move(sum_);
  sum_ = GradientsParams();
  count_ = 0;
  return out;
}

}  // namespace ember::optim
