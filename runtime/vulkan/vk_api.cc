#include "runtime/vulkan/vk_api.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::vk {

void Api::load_instance(VkInstance instance) {
#define EMBER_VK_LOAD(name) \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));
  EMBER_VK_INSTANCE_FUNCS(EMBER_VK_LOAD)
#undef EMBER_VK_LOAD
}

void Api::load_device(VkDevice device) {
#define EMBER_VK_LOAD(name) name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));
  EMBER_VK_DEVICE_FUNCS(EMBER_VK_LOAD)
#undef EMBER_VK_LOAD
}

Api* api(std::string* why) {
  static std::string error;
  static Api* table = [&]() -> Api* {
    void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      error = absl::StrCat("cannot load libvulkan.so.1: ", dlerror());
      return nullptr;
    }
    auto* a = new Api;
    a->vkGetInstanceProcAddr =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (a->vkGetInstanceProcAddr == nullptr) {
      error = "libvulkan.so.1 has no vkGetInstanceProcAddr";
      delete a;
      return nullptr;
    }
    a->vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
        a->vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
    a->vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
        a->vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
    return a;
  }();
  if (why != nullptr) *why = error;
  return table;
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw Error(absl::StrCat("vulkan: ", what, " failed (VkResult ", r, ")"));
}

}  // namespace ember::runtime::vk
