// EMBER_DUMP=kernels writes each generated kernel's GLSL, and that source compiles on its own.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "jit/compile.h"
#include "tests/jit/vulkan_util.h"

namespace ember {
namespace {

TEST(DumpKernels, WritesGlslThatCompiles) {
  EMBER_REQUIRE_VULKAN();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ember_dump_kernels_" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("EMBER_DUMP", "kernels", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(testing::host_uniform({4, 37}, 7), dev);
  // Distinct shapes from other tests' kernels are irrelevant: the memory cache is per process.
  auto y = activation::softmax(x, 1) + activation::gelu(x).sum_dim(0);
  y.to_data();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  int sources = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".comp") continue;
    ++sources;
    std::ifstream in(entry.path());
    std::string glsl((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(glsl.find("void main()"), std::string::npos);
    std::vector<uint32_t> spirv = jit::compile_glsl(glsl, entry.path().stem().string());
    ASSERT_FALSE(spirv.empty());
    EXPECT_EQ(spirv[0], 0x07230203u) << entry.path();
  }
  EXPECT_GE(sources, 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
