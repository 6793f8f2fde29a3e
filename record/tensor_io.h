#pragma once
// Host data to a device tensor of any rank (optimizer state is kept rank-erased).
#include "frontend/tensor.h"

namespace ember::record {

// Throws ember::Error for a rank above 8.
RawTensor upload(const TensorData& data, const Device& device);

}  // namespace ember::record
