#pragma once
// Helpers for optimizer state: tensors kept rank-erased between steps (one map serves parameters
// of every rank) and moved to the parameter's device when it moved.
#include <optional>

#include "frontend/tensor.h"

namespace ember::optim::detail {

inline RawTensor state_to_device(const RawTensor& t, const Device& device) {
  if (!t.defined() || t.device() == device) return t;
  return ops::to_device(t, device);
}

inline std::optional<RawTensor> state_to_device(const std::optional<RawTensor>& t,
                                                const Device& device) {
  if (!t) return std::nullopt;
  return state_to_device(*t, device);
}

}  // namespace ember::optim::detail
