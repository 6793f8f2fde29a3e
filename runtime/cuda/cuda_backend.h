#pragma once
#include <string>

#include "runtime/backend.h"

namespace ember::runtime {

// The CUDA backend of device `index`; throws ember::Error when the driver, NVRTC or the device
// is unavailable.
Backend& cuda_backend(int index);
// Devices visible through the driver (0 without one; `why` says why). Never throws.
int cuda_device_count(std::string* why = nullptr);

}  // namespace ember::runtime
