#pragma once
// Identity: returns its input (a placeholder where a model's layer is optional).
#include "nn/module.h"

namespace ember::nn {

struct Identity {
  template <class X>
  X forward(const X& x) const {
    return x;
  }
  EMBER_MODULE(Identity)
};

}  // namespace ember::nn
