#include "runtime/registry.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/vulkan/vk_backend.h"

namespace ember::runtime {

std::string device_name(BackendKind kind, int index) {
  switch (kind) {
    case BackendKind::Cpu:
      return index == 1 ? "cpu-ref" : "cpu";
    case BackendKind::Vulkan:
      return absl::StrCat("vulkan:", index);
    case BackendKind::Cuda:
      return absl::StrCat("cuda:", index);
  }
  return "?";
}

int device_count(BackendKind kind, std::string* why) {
  switch (kind) {
    case BackendKind::Cpu:
      return 2;  // the CPU target (0) and the reference executor (1)
    case BackendKind::Vulkan:
      return vulkan_device_count(why);
    case BackendKind::Cuda:
      return cuda_device_count(why);
  }
  return 0;
}

namespace {

Backend& find_backend(BackendKind kind, int index) {
  std::string why;
  int n = device_count(kind, &why);
  if (index < 0 || index >= n) {
    const char* family = kind == BackendKind::Cuda ? "CUDA" : "Vulkan";
    throw Error(absl::StrCat("device ", device_name(kind, index), " is not available: ",
                             n == 0 ? why : absl::StrCat("only ", n, " ", family, " device(s)")));
  }
  switch (kind) {
    case BackendKind::Cpu:
      return index == 1 ? cpu_backend() : cpu_jit_backend();
    case BackendKind::Vulkan:
      return vulkan_backend(index);
    case BackendKind::Cuda:
      return cuda_backend(index);
  }
  throw Error("unknown device " + device_name(kind, index));
}

}  // namespace

Backend& backend(BackendKind kind, int index) {
  constexpr int kKinds = 3, kIndices = 16;
  static std::atomic<Backend*> found[kKinds][kIndices] = {};
  const int k = static_cast<int>(kind);
  const bool keep = index >= 0 && index < kIndices;
  if (keep) {
    if (Backend* b = found[k][index].load(std::memory_order_acquire)) return *b;
  }
  Backend& b = find_backend(kind, index);
  if (keep) found[k][index].store(&b, std::memory_order_release);
  return b;
}

std::pair<BackendKind, int> preferred_device() {
  if (cuda_device_count() > 0) return {BackendKind::Cuda, 0};
  if (vulkan_gpu_available()) return {BackendKind::Vulkan, 0};
  return {BackendKind::Cpu, 0};
}

}  // namespace ember::runtime
