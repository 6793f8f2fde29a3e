#pragma once
// Shape checks shared by the losses: each throws ember::Error naming the loss and both shapes.
#include "nn/checks.h"

namespace ember::nn::detail {

inline void check_same_shape(const char* loss, const RawTensor& a, const RawTensor& b) {
  if (a.shape() != b.shape()) {
    throw_layer_error(loss, "predictions and targets differ in shape: " + a.type().to_string() +
                                " and " + b.type().to_string());
  }
}

}  // namespace ember::nn::detail
