// Kernels whose buffers may alias (in-place reuse) get SPIR-V's Aliased decoration on every
// buffer variable; others get none. Decorations are read from the words, per the SPIR-V spec.
#include "jit/codegen/spirv_aliased.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "jit/compile/compile.h"

namespace ember::jit {
namespace {

const char* kShader = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B0 { float b0[]; };
layout(std430, set = 0, binding = 1) buffer B1 { float b1[]; };
void main() { uint i = gl_GlobalInvocationID.x; float v = b0[i]; b1[i] = v * 2.0; }
)";

// Ids decorated Aliased, and ids of StorageBuffer variables.
std::pair<std::set<uint32_t>, std::set<uint32_t>> scan(const std::vector<uint32_t>& w) {
  std::set<uint32_t> aliased, buffers;
  for (size_t i = 5; i < w.size(); i += w[i] >> 16) {
    uint32_t op = w[i] & 0xffffu, n = w[i] >> 16;
    if (op == 71 && n == 3 && w[i + 2] == 20) aliased.insert(w[i + 1]);
    if (op == 59 && n >= 4 && (w[i + 3] == 12 || w[i + 3] == 2)) buffers.insert(w[i + 2]);
  }
  return {aliased, buffers};
}

TEST(SpirvAliased, MarkedKernelsDecorateEveryBuffer) {
  std::string marked = kShader;
  marked.insert(marked.find('\n') + 1, kAliasedBuffersMarker);
  auto [aliased, buffers] = scan(compile_glsl(marked, "aliased"));
  EXPECT_EQ(buffers.size(), 2u);
  EXPECT_EQ(aliased, buffers);
}

TEST(SpirvAliased, OtherKernelsStayUndecorated) {
  auto [aliased, buffers] = scan(compile_glsl(kShader, "plain"));
  EXPECT_EQ(buffers.size(), 2u);
  EXPECT_TRUE(aliased.empty());
}

TEST(SpirvAliased, MalformedModulesAreLeftAlone) {
  std::vector<uint32_t> words = {0x07230203u, 0x10000, 0, 10, 0, 0 /* zero word count */};
  EXPECT_EQ(decorate_aliased_buffers(words), 0);
  EXPECT_EQ(words.size(), 6u);
}

}  // namespace
}  // namespace ember::jit
