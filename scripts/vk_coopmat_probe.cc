// Lists what each Vulkan device offers for tensor-core matmuls (issue 27's cooperative-matrix
// item): its cooperative-matrix and bfloat16 extensions, and every (M, N, K, types, scope)
// entry of VK_KHR_cooperative_matrix and VK_NV_cooperative_matrix. Built by
// scripts/gpu-bundle.sh for the GPU machine; runs anywhere libvulkan.so.1 loads:
//     gpu-bundle/bin/vk_coopmat_probe
// Debian 12's Vulkan headers (1.3.239) predate VK_KHR_cooperative_matrix (1.3.255): its
// properties struct and enum values are spelled here, as the Vulkan specification defines them.
#include <dlfcn.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// VK_KHR_cooperative_matrix's VkCooperativeMatrixPropertiesKHR.
constexpr int kCooperativeMatrixPropertiesKhr = 1000506001;  // its VkStructureType
struct CooperativeMatrixPropertiesKhr {
  int s_type = kCooperativeMatrixPropertiesKhr;
  void* next = nullptr;
  uint32_t m = 0, n = 0, k = 0;
  int a_type = 0, b_type = 0, c_type = 0, result_type = 0;
  VkBool32 saturating_accumulation = VK_FALSE;
  int scope = 0;
};
using GetCooperativeMatrixPropertiesKhr = VkResult (*)(VkPhysicalDevice, uint32_t*,
                                                       CooperativeMatrixPropertiesKhr*);

// Component types (VkComponentTypeKHR, equal to the NV values for the ones they share).
std::string component(int t) {
  switch (t) {
    case 0:
      return "f16";
    case 1:
      return "f32";
    case 2:
      return "f64";
    case 3:
      return "s8";
    case 5:
      return "s32";
    case 7:
      return "u8";
    case 9:
      return "u32";
    case 1000141000:
      return "bf16";
    default:
      return "type" + std::to_string(t);
  }
}

// Scopes (VkScopeKHR): 1 device, 2 workgroup, 3 subgroup, 5 queue family.
const char* scope(int s) {
  switch (s) {
    case 1:
      return "device";
    case 2:
      return "workgroup";
    case 3:
      return "subgroup";
    case 5:
      return "queue family";
    default:
      return "?";
  }
}

// The device's entries by a Vulkan two-call query (`get` null: none), each starting as `blank`.
template <class Entry, class Get>
std::vector<Entry> query(Get get, VkPhysicalDevice device, const Entry& blank) {
  if (get == nullptr) return {};
  uint32_t count = 0;
  get(device, &count, nullptr);
  std::vector<Entry> entries(count, blank);
  get(device, &count, entries.data());
  return entries;
}

void list_khr(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, VkPhysicalDevice device) {
  auto get = reinterpret_cast<GetCooperativeMatrixPropertiesKhr>(
      gipa(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  for (const auto& e : query(get, device, CooperativeMatrixPropertiesKhr{})) {
    std::printf("  KHR %ux%ux%u A=%s B=%s C=%s result=%s scope=%s%s\n", e.m, e.n, e.k,
                component(e.a_type).c_str(), component(e.b_type).c_str(),
                component(e.c_type).c_str(), component(e.result_type).c_str(), scope(e.scope),
                e.saturating_accumulation ? " saturating" : "");
  }
}

void list_nv(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, VkPhysicalDevice device) {
  auto get = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      gipa(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  VkCooperativeMatrixPropertiesNV blank{};
  blank.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  for (const auto& e : query(get, device, blank)) {
    std::printf("  NV %ux%ux%u A=%s B=%s C=%s D=%s scope=%s\n", e.MSize, e.NSize, e.KSize,
                component(e.AType).c_str(), component(e.BType).c_str(), component(e.CType).c_str(),
                component(e.DType).c_str(), scope(e.scope));
  }
}

}  // namespace

int main() {
  void* lib = dlopen("libvulkan.so.1", RTLD_NOW);
  if (lib == nullptr) {
    std::printf("vk_coopmat_probe: no libvulkan.so.1 (%s)\n", dlerror());
    return 1;
  }
  auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
  auto create = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "vk_coopmat_probe";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (VkResult r = create(&info, nullptr, &instance); r != VK_SUCCESS) {
    std::printf("vk_coopmat_probe: vkCreateInstance failed (%d)\n", r);
    return 1;
  }
  auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(
      gipa(instance, "vkEnumeratePhysicalDevices"));
  auto properties = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(
      gipa(instance, "vkGetPhysicalDeviceProperties"));
  auto extensions = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
      gipa(instance, "vkEnumerateDeviceExtensionProperties"));
  uint32_t count = 0;
  enumerate(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  enumerate(instance, &count, devices.data());
  for (VkPhysicalDevice device : devices) {
    VkPhysicalDeviceProperties p;
    properties(device, &p);
    std::printf("%s: Vulkan %u.%u.%u, driver 0x%x\n", p.deviceName,
                VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
                VK_API_VERSION_PATCH(p.apiVersion), p.driverVersion);
    uint32_t n = 0;
    extensions(device, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> ext(n);
    extensions(device, nullptr, &n, ext.data());
    bool khr = false, nv = false;
    for (const auto& e : ext) {
      const std::string name = e.extensionName;
      if (name.find("cooperative") != std::string::npos ||
          name.find("bfloat16") != std::string::npos) {
        std::printf("  extension %s (revision %u)\n", e.extensionName, e.specVersion);
      }
      khr = khr || name == "VK_KHR_cooperative_matrix";
      nv = nv || name == "VK_NV_cooperative_matrix";
    }
    if (khr) list_khr(gipa, instance, device);
    if (nv) list_nv(gipa, instance, device);
    if (!khr && !nv) std::printf("  no cooperative matrices\n");
  }
  return 0;
}
