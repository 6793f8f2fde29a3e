#pragma once
// The Vulkan functions Ember uses, resolved at run time from libvulkan.so.1 (dlopen), so every
// binary starts on machines without a Vulkan loader and reports the device as unavailable.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace ember::runtime::vk {

// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_VK_INSTANCE_FUNCS(X)            \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)                      \
  X(vkEnumerateDeviceExtensionProperties)
// clang-format on

// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_VK_DEVICE_FUNCS(X)   \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkMapMemory)                   \
  X(vkUnmapMemory)                 \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkGetBufferMemoryRequirements) \
  X(vkBindBufferMemory)            \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkFreeCommandBuffers)          \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkResetCommandBuffer)          \
  X(vkCmdBindPipeline)             \
  X(vkCmdPushDescriptorSetKHR)     \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkCmdPipelineBarrier)          \
  X(vkCmdCopyBuffer)               \
  X(vkCmdFillBuffer)               \
  X(vkCreateFence)                 \
  X(vkDestroyFence)                \
  X(vkWaitForFences)               \
  X(vkGetFenceStatus)              \
  X(vkResetFences)                 \
  X(vkQueueSubmit)                 \
  X(vkDeviceWaitIdle)              \
  X(vkCreateQueryPool)             \
  X(vkDestroyQueryPool)            \
  X(vkCmdWriteTimestamp)           \
  X(vkGetQueryPoolResults)         \
  X(vkCmdResetQueryPool)
// clang-format on

struct Api {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define EMBER_VK_DECLARE(name) PFN_##name name = nullptr;
  EMBER_VK_INSTANCE_FUNCS(EMBER_VK_DECLARE)
  EMBER_VK_DEVICE_FUNCS(EMBER_VK_DECLARE)
#undef EMBER_VK_DECLARE

  void load_instance(VkInstance instance);
  void load_device(VkDevice device);
};

// The process-wide table; null when libvulkan.so.1 cannot be opened (`why` says so).
Api* api(std::string* why = nullptr);

// Throws ember::Error naming `what` and the VkResult when r is not VK_SUCCESS.
void check(VkResult r, const char* what);

}  // namespace ember::runtime::vk
