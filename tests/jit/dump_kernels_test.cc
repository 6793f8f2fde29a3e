// EMBER_DUMP=kernels writes each generated kernel's source, and that source compiles on its own;
// EMBER_DUMP=binary writes what the device runs: SPIR-V disassembly or PTX.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "jit/codegen/cuda_source.h"
#include "jit/compile/compile.h"
#include "runtime/cuda/nvrtc.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(DumpKernels, WritesSourceThatCompiles) {
  EMBER_REQUIRE_GPU_DEVICE();
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
  // GLSL on Vulkan, CUDA C++ on CUDA: either way the dumped source compiles on its own.
  int sources = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::string source((std::istreambuf_iterator<char>(in)), {});
    std::string name = entry.path().stem().string();
    if (entry.path().extension() == ".comp") {
      ++sources;
      EXPECT_NE(source.find("void main()"), std::string::npos);
      std::vector<uint32_t> spirv = jit::compile_glsl(source, name);
      ASSERT_FALSE(spirv.empty());
      EXPECT_EQ(spirv[0], 0x07230203u) << entry.path();
    } else if (entry.path().extension() == ".cu") {
      ++sources;
      EXPECT_NE(source.find("__global__ void __launch_bounds__"), std::string::npos);
      EXPECT_GT(runtime::cuda::nvrtc_compile(source, name, "sm_90a", false).size(), 100u);
    }
  }
  EXPECT_GE(sources, 2);
  fs::remove_all(dir);
}

TEST(DumpKernels, BinaryIsSpirvAssemblyOrPtx) {
  EMBER_REQUIRE_GPU_DEVICE();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ember_dump_binary_" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("EMBER_DUMP", "binary", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(testing::host_uniform({5, 41}, 8), dev);
  // A kernel of its own (other tests' kernels may already be in this process's memory cache).
  (activation::softmax(x, 1) * 3.25 - 0.125).to_data();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  int binaries = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (entry.path().extension() == ".spvasm") {
      ++binaries;
      EXPECT_NE(text.find("OpEntryPoint GLCompute"), std::string::npos) << entry.path();
    } else if (entry.path().extension() == ".ptx") {
      ++binaries;
      EXPECT_NE(text.find(".entry"), std::string::npos) << entry.path();
      EXPECT_NE(text.find(".target sm_"), std::string::npos) << entry.path();
    }
  }
  EXPECT_GE(binaries, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
