#include "optim/gradients_params.h"

#include <algorithm>

namespace ember::optim {

std::optional<RawTensor> GradientsParams::get_raw(ParamId id) const {
  auto it = grads_.find(id);
  if (it == grads_.end()) return std::nullopt;
  return it->second;
}

std::optional<RawTensor> GradientsParams::remove_raw(ParamId id) {
  auto it = grads_.find(id);
  if (it == grads_.end()) return std::nullopt;
  RawTensor g = std::move(it->second);
  grads_.erase(it);
  return g;
}

void GradientsParams::register_raw(ParamId id, const RawTensor& grad) {
  // Kept off the tape: an optimizer step must not extend the next backward's graph.
  grads_.insert_or_assign(id, grad.detached());
}

std::vector<ParamId> GradientsParams::ids() const {
  std::vector<ParamId> out;
  out.reserve(grads_.size());
  for (const auto& [id, g] : grads_) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ember::optim
