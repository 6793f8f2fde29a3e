#pragma once
#include <string>

#include "runtime/backend.h"

namespace ember::runtime {

// The Vulkan backend of device `index` (best first: discrete > integrated > CPU). Throws
// ember::Error when Vulkan or that device is unavailable.
Backend& vulkan_backend(int index);
// Whether a Vulkan device exists (loads the loader once; never throws).
int vulkan_device_count(std::string* why = nullptr);
// Whether the best Vulkan device is a GPU (not a CPU implementation such as lavapipe).
bool vulkan_gpu_available();

}  // namespace ember::runtime
