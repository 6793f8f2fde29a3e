#pragma once
// Storage buffers that may alias, in SPIR-V. GLSL has no qualifier for it and glslang decorates
// nothing, so drivers may assume two buffer bindings never share memory (NVIDIA's does: it may
// load a read-only binding again after a store to another). A kernel whose output may take an
// input's buffer (in-place reuse) marks its GLSL with kAliasedBuffersMarker and its SPIR-V gets
// the Aliased decoration on every buffer variable.
#include <cstdint>
#include <string_view>
#include <vector>

namespace ember::jit {

inline constexpr std::string_view kAliasedBuffersMarker = "// ember: buffers may alias\n";

// Adds OpDecorate <var> Aliased for every StorageBuffer (or Uniform-class buffer) variable of
// the module. Returns how many were decorated.
int decorate_aliased_buffers(std::vector<uint32_t>& spirv);

}  // namespace ember::jit
