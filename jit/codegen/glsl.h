#pragma once
// GLSL 450 compute shaders for Vulkan: the Dialect of the C-style renderer.
#include <string>

#include "jit/codegen/kernel.h"

namespace ember::jit {

std::string render_glsl(const KernelDesc& k);

}  // namespace ember::jit
