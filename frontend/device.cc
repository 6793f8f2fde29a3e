#include "frontend/device.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontend/detail/stream.h"
#include "ir/error.h"
#include "runtime/registry.h"

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
  if (name == "cpu-ref" && index.empty()) return cpu_reference();
  if (name == "cpu" && (index.empty() || i <= 1)) return Device(DeviceType::Cpu, i);
  if (name == "vulkan") return vulkan(i);
  if (name == "cuda") return cuda(i);
  throw Error(
      absl::StrCat("device: unknown device '", text, "' (expected cpu, vulkan[:N] or cuda[:N])"));
}

Device Device::default_device() {
  if (const char* env = std::getenv("EMBER_DEVICE"); env != nullptr && *env != '\0') {
    return parse(env);
  }
  auto [kind, index] = runtime::preferred_device();
  switch (kind) {
    case runtime::BackendKind::Cuda:
      return cuda(index);
    case runtime::BackendKind::Vulkan:
      return vulkan(index);
    case runtime::BackendKind::Cpu:
      break;
  }
  return cpu();
}

std::string Device::to_string() const {
  switch (type_) {
    case DeviceType::Cpu:
      return index_ == 1 ? "cpu-ref" : "cpu";
    case DeviceType::Vulkan:
      return absl::StrCat("vulkan:", index_);
    case DeviceType::Cuda:
      return absl::StrCat("cuda:", index_);
  }
  return "?";
}

bool Device::is_available() const {
  return index_ < runtime::device_count(detail::backend_kind(type_));
}

void flush(const Device& device) { detail::Stream::of(device).flush(); }

void sync(const Device& device) {
  detail::Stream::of(device).flush();
  detail::backend_for(device).sync();
}

}  // namespace ember
