#pragma once
// CUDA C++ kernels for NVRTC: the second Dialect of the C-style renderer.
#include <string>

#include "jit/codegen/kernel.h"

namespace ember::jit {

// The kernel's entry point in the rendered source: "ember_" and its readable name, so that
// profilers (ncu -k regex:row_) tell kernels apart.
std::string cuda_entry(const KernelDesc& k);

std::string render_cuda(const KernelDesc& k);

}  // namespace ember::jit
