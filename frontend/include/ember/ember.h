#pragma once
#include <iostream>

// Ember: the umbrella header. `#include <ember/ember.h>` and `using namespace ember;`.
#include "frontend/activation.h"
#include "frontend/autodiff.h"
#include "frontend/device.h"
#include "frontend/distribution.h"
#include "frontend/fusion_guard.h"
#include "frontend/grid.h"
#include "frontend/linalg.h"
#include "frontend/matmul_precision.h"
#include "frontend/module.h"
#include "frontend/print.h"
#include "frontend/random_state.h"
#include "frontend/stats.h"
#include "frontend/tensor.h"
#include "frontend/tensor_data.h"
#include "ir/error.h"

namespace ember {

// Prints a closeness report of two tensors for a range of tolerances (see print.h).
template <int D, class K>
std::string check_closeness(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return check_closeness(a.raw(), b.raw(), &std::cout);
}

}  // namespace ember
