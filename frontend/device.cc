#include "frontend/device.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontend/stream.h"
#include "ir/error.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/vulkan/vk_backend.h"

namespace ember {

Device Device::parse(const std::string& text) {
  std::string name = text, index;
  if (auto colon = text.find(':'); colon != std::string::npos) {
    name = text.substr(0, colon);
    index = text.substr(colon + 1);
  }
  int i = 0;
  if (!index.empty() && (!absl::SimpleAtoi(index, &i) || i < 0)) {
    throw Error(absl::StrCat("device: bad index in '", text, "'"));
  }
  if (name == "cpu") return cpu();
  if (name == "vulkan") return vulkan(i);
  if (name == "cuda") return cuda(i);
  throw Error(
      absl::StrCat("device: unknown device '", text, "' (expected cpu, vulkan[:N] or cuda[:N])"));
}

Device Device::default_device() {
  if (const char* env = std::getenv("EMBER_DEVICE"); env != nullptr && *env != '\0') {
    return parse(env);
  }
  if (cuda(0).is_available()) return cuda(0);
  // A Vulkan GPU beats the CPU backend; a CPU Vulkan driver (lavapipe) does not.
  if (runtime::vulkan_gpu_available()) return vulkan(0);
  return cpu();
}

std::string Device::to_string() const {
  switch (type_) {
    case DeviceType::Cpu:
      return "cpu";
    case DeviceType::Vulkan:
      return absl::StrCat("vulkan:", index_);
    case DeviceType::Cuda:
      return absl::StrCat("cuda:", index_);
  }
  return "?";
}

bool Device::is_available() const {
  switch (type_) {
    case DeviceType::Cpu:
      return true;
    case DeviceType::Vulkan:
      return index_ < runtime::vulkan_device_count();
    case DeviceType::Cuda:
      return index_ < runtime::cuda_device_count();
  }
  return false;
}

void sync(const Device& device) {
  detail::Stream::of(device).flush();
  detail::backend_for(device).sync();
}

}  // namespace ember
