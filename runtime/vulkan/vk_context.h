#pragma once
// One Vulkan device opened for compute: instance, chosen physical device, logical device and
// queue, with the limits and optional features kernels must respect.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/vulkan/vk_api.h"

namespace ember::runtime::vk {

struct DeviceFeatures {
  bool int64 = false, float64 = false, int16 = false, float16 = false, int8 = false;
  bool storage8 = false, storage16 = false;
};

struct DeviceLimits {
  uint64_t max_storage_buffer_range = 0;
  uint32_t max_push_constants = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_count_x = 0;
  uint32_t max_shared_memory = 0;
  uint64_t min_storage_offset_alignment = 0;
  float timestamp_period_ns = 1.0f;
  bool timestamps = false;
  uint32_t max_storage_buffers = 0;  // per shader stage (lavapipe: 32)
};

struct PhysicalDeviceInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
  const char* type_name() const;
};

class Context {
 public:
  // Opens device `index` of the ordered list (discrete > integrated > virtual > CPU).
  explicit Context(int index);
  ~Context();  // closes
  // Waits for the device and destroys it; every object made from it must be destroyed first.
  void close();
  bool closed() const { return device_ == VK_NULL_HANDLE; }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Api& api() const { return *api_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const PhysicalDeviceInfo& info() const { return info_; }
  const DeviceLimits& limits() const { return limits_; }
  const DeviceFeatures& features() const { return features_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }

 private:
  Api* api_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  PhysicalDeviceInfo info_;
  DeviceLimits limits_;
  DeviceFeatures features_;
  VkPhysicalDeviceMemoryProperties memory_{};
};

// The Vulkan devices present, best first; empty (with `why`) when Vulkan is unusable here.
std::vector<PhysicalDeviceInfo> list_devices(std::string* why = nullptr);

// Runs `close` when the process exits (later registrations first): how a backend that lives as
// long as the process releases its device, so that nothing the driver allocated for it is left
// over.
void at_instance_exit(std::function<void()> close);

}  // namespace ember::runtime::vk
