#pragma once
// Clipping by one norm over every parameter's gradient (PyTorch's clip_grad_norm_): the total
// norm is the p-norm of all gradient elements taken together (for p = 2, sqrt of the sum of every
// squared element; p = infinity, the largest magnitude), and every gradient is scaled by
// min(1, max_norm / (total + 1e-6)). The direction of the whole update is kept, unlike per
// parameter clipping.
#include <limits>

#include "frontend/tensor.h"
#include "optim/gradients_params.h"

namespace ember::optim {

inline constexpr double kInfNorm = std::numeric_limits<double>::infinity();

// Scales the gradients in place and returns the total norm before clipping, as a lazy [1]
// tensor (reading it is a sync point; the clipping itself never syncs). Throws ember::Error for
// a non-positive max_norm or norm_type. An empty set returns 0.
Tensor<1> clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type = 2.0);

}  // namespace ember::optim
