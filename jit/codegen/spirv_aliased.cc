#include "jit/codegen/spirv_aliased.h"

#include <cstddef>

namespace ember::jit {
namespace {

// SPIR-V opcodes, storage classes and decorations used here (the SPIR-V specification, 3.x).
constexpr uint32_t kOpDecorate = 71, kOpMemberDecorate = 72, kOpVariable = 59;
constexpr uint32_t kStorageUniform = 2, kStorageStorageBuffer = 12;
constexpr uint32_t kDecorationAliased = 20;
constexpr size_t kHeaderWords = 5;

}  // namespace

int decorate_aliased_buffers(std::vector<uint32_t>& spirv) {
  std::vector<uint32_t> buffers;
  size_t after_annotations = 0;  // where new decorations go: after the last existing one
  for (size_t i = kHeaderWords; i < spirv.size();) {
    uint32_t count = spirv[i] >> 16, op = spirv[i] & 0xffffu;
    if (count == 0 || i + count > spirv.size()) return 0;  // malformed: leave it alone
    if (op == kOpDecorate || op == kOpMemberDecorate) after_annotations = i + count;
    if (op == kOpVariable && count >= 4) {
      uint32_t storage = spirv[i + 3];
      if (storage == kStorageStorageBuffer || storage == kStorageUniform)
        buffers.push_back(spirv[i + 2]);
    }
    i += count;
  }
  if (buffers.empty() || after_annotations == 0) return 0;
  std::vector<uint32_t> decorations;
  for (uint32_t id : buffers) {
    decorations.insert(decorations.end(), {(3u << 16) | kOpDecorate, id, kDecorationAliased});
  }
  spirv.insert(spirv.begin() + static_cast<std::ptrdiff_t>(after_annotations), decorations.begin(),
               decorations.end());
  return static_cast<int>(buffers.size());
}

}  // namespace ember::jit
