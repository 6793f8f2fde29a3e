#include "runtime/vulkan/vk_context.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::vk {
namespace {

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

// A process-wide instance: device enumeration and every Context share it. At exit it shuts down
// the backends registered with at_instance_exit (their devices, pipelines and memory). The
// VkInstance itself stays: destroying it makes the loader unload the driver, and lavapipe keeps
// allocations in its globals across instances (128 bytes after a mere enumeration), which would
// then show as leaks from an unloaded module; an instance owns no device resources.
class Instance {
 public:
  Instance() {
    Api* a = api(&error);
    if (a == nullptr) return;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "ember";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    VkResult r = a->vkCreateInstance(&ci, nullptr, &handle);
    if (r != VK_SUCCESS) {
      error = absl::StrCat("vkCreateInstance failed (VkResult ", r, ")");
      handle = VK_NULL_HANDLE;
      return;
    }
    a->load_instance(handle);
  }
  ~Instance() {
    std::vector<std::function<void()>> closers;
    {
      std::lock_guard lock(mutex);
      closers.swap(at_exit);
    }
    for (auto it = closers.rbegin(); it != closers.rend(); ++it) (*it)();
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle = VK_NULL_HANDLE;
  std::string error;
  std::mutex mutex;
  std::vector<std::function<void()>> at_exit;
};

Instance& instance() {
  static Instance inst;
  return inst;
}

bool has_extension(const Api& a, VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  a.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  a.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<PhysicalDeviceInfo> enumerate(std::string* why);

const char* PhysicalDeviceInfo::type_name() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

std::vector<PhysicalDeviceInfo> list_devices(std::string* why) {
  // Enumerated once per process: device sets do not change while it runs, and this is asked on
  // hot paths (default device, stream lookup).
  static std::string error;
  static const std::vector<PhysicalDeviceInfo> devices = [] { return enumerate(&error); }();
  if (why) *why = error;
  return devices;
}

std::vector<PhysicalDeviceInfo> enumerate(std::string* why) {
  Instance& inst = instance();
  if (inst.handle == VK_NULL_HANDLE) {
    if (why) *why = inst.error;
    return {};
  }
  const Api& a = *api();
  uint32_t n = 0;
  a.vkEnumeratePhysicalDevices(inst.handle, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  a.vkEnumeratePhysicalDevices(inst.handle, &n, pds.data());
  std::vector<PhysicalDeviceInfo> out;
  for (VkPhysicalDevice pd : pds) {
    VkPhysicalDeviceProperties p;
    a.vkGetPhysicalDeviceProperties(pd, &p);
    if (!has_extension(a, pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) continue;
    out.push_back({pd, p.deviceName, p.deviceType, p.vendorID, p.deviceID, p.driverVersion});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return type_rank(x.type) < type_rank(y.type);
  });
  if (out.empty() && why) *why = "no Vulkan device with VK_KHR_push_descriptor";
  return out;
}

Context::Context(int index) : api_(vk::api()) {
  std::string why;
  auto devices = list_devices(&why);
  if (devices.empty()) throw Error("vulkan: unavailable: " + why);
  if (index < 0 || index >= static_cast<int>(devices.size())) {
    throw Error(absl::StrCat("vulkan: device index ", index, " out of range (", devices.size(),
                             " device", devices.size() == 1 ? "" : "s", " found)"));
  }
  info_ = devices[index];
  instance_ = instance().handle;
  const Api& a = *api_;
  VkPhysicalDevice pd = info_.handle;

  VkPhysicalDeviceProperties props;
  a.vkGetPhysicalDeviceProperties(pd, &props);
  const VkPhysicalDeviceLimits& l = props.limits;
  limits_ = {l.maxStorageBufferRange,
             l.maxPushConstantsSize,
             l.maxComputeWorkGroupInvocations,
             l.maxComputeWorkGroupCount[0],
             l.maxComputeSharedMemorySize,
             l.minStorageBufferOffsetAlignment,
             l.timestampPeriod,
             l.timestampComputeAndGraphics == VK_TRUE,
             l.maxPerStageDescriptorStorageBuffers};
  a.vkGetPhysicalDeviceMemoryProperties(pd, &memory_);

  // Optional features: enable what the device has; kernels check before using a dtype.
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  f11.pNext = &f12;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &f11;
  a.vkGetPhysicalDeviceFeatures2(pd, &f2);
  features_ = {f2.features.shaderInt64 == VK_TRUE,
               f2.features.shaderFloat64 == VK_TRUE,
               f2.features.shaderInt16 == VK_TRUE,
               f12.shaderFloat16 == VK_TRUE,
               f12.shaderInt8 == VK_TRUE,
               f12.storageBuffer8BitAccess == VK_TRUE,
               f11.storageBuffer16BitAccess == VK_TRUE};
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  e12.shaderFloat16 = f12.shaderFloat16;
  e12.shaderInt8 = f12.shaderInt8;
  e12.storageBuffer8BitAccess = f12.storageBuffer8BitAccess;
  e12.shaderBufferInt64Atomics = f12.shaderBufferInt64Atomics;
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  e11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
  e11.pNext = &e12;
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enable.features.shaderInt64 = f2.features.shaderInt64;
  enable.features.shaderFloat64 = f2.features.shaderFloat64;
  enable.features.shaderInt16 = f2.features.shaderInt16;
  enable.pNext = &e11;

  uint32_t nq = 0;
  a.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qs(nq);
  a.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qs.data());
  bool found = false;
  for (uint32_t i = 0; i < nq && !found; ++i) {
    if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
      limits_.timestamps = limits_.timestamps || qs[i].timestampValidBits > 0;
    }
  }
  if (!found) throw Error("vulkan: device " + info_.name + " has no compute queue");

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  const char* exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &enable;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = exts;
  check(a.vkCreateDevice(pd, &dci, nullptr, &device_), "vkCreateDevice");
  api_->load_device(device_);
  a.vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
}

void at_instance_exit(std::function<void()> close) {
  Instance& inst = instance();
  std::lock_guard lock(inst.mutex);
  inst.at_exit.push_back(std::move(close));
}

Context::~Context() { close(); }

void Context::close() {
  if (device_ == VK_NULL_HANDLE) return;
  api_->vkDeviceWaitIdle(device_);
  api_->vkDestroyDevice(device_, nullptr);
  device_ = VK_NULL_HANDLE;
  queue_ = VK_NULL_HANDLE;
}

}  // namespace ember::runtime::vk
