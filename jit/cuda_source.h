#pragma once
// CUDA C++ kernels for NVRTC: the second Dialect of the C-style renderer.
#include <string>

#include "jit/kernel.h"

namespace ember::jit {

// The kernel's entry point name in the rendered source.
inline constexpr const char* kCudaEntry = "ember_kernel";

std::string render_cuda(const KernelDesc& k);

}  // namespace ember::jit
