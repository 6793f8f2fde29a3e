// The matmul family's hand-written CUDA device code compiles with NVRTC on its own: each .cuh
// after only the files it documents as its prerequisites and the integer typedefs of the CUDA
// prelude, for Hopper (sm_90a: every instruction they use). Whole kernels that instantiate the
// tiles are compiled by tests/jit/cuda_compile_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/matmul/device_code.h"
#include "runtime/cuda/nvrtc.h"

namespace ember::kernels::matmul {
namespace {

constexpr const char* kTypedefs =
    "typedef unsigned int uint;\ntypedef long long int64_t;\n"
    "typedef unsigned long long uint64_t;\ntypedef unsigned short uint16_t;\n"
    "typedef unsigned char uint8_t;\n";

void expect_compiles(const std::string& name, const std::vector<const char*>& files) {
  if (runtime::cuda::nvrtc_version() == "none") GTEST_SKIP() << "NVRTC unavailable";
  std::string source = kTypedefs;
  for (const char* f : files) source += f;
  try {
    EXPECT_GT(runtime::cuda::nvrtc_compile(source, name, "sm_90a", false).size(), 0u);
  } catch (const std::exception& e) {
    ADD_FAILURE() << name << ": " << e.what();
  }
}

TEST(MatmulDeviceCode, MmaSyncCompilesAlone) { expect_compiles("mma_sync", {kMmaSyncCuh}); }

TEST(MatmulDeviceCode, SimtTileCompilesAfterMmaSync) {
  expect_compiles("simt_tile", {kMmaSyncCuh, kSimtTileCuh});
}

TEST(MatmulDeviceCode, WgmmaCompilesAfterMmaSync) {
  expect_compiles("wgmma", {kMmaSyncCuh, kWgmmaCuh});
}

TEST(MatmulDeviceCode, WgmmaTmaCompilesAfterWgmma) {
  expect_compiles("wgmma_tma", {kMmaSyncCuh, kWgmmaCuh, kWgmmaTmaCuh});
}

TEST(MatmulDeviceCode, EmbeddedTextIsTheWholeFile) {
  // The embedding keeps each file whole: its leading comment and its last definition.
  EXPECT_EQ(std::string(kWgmmaCuh).rfind("// Hopper's warpgroup tiles", 0), 0u);
  EXPECT_NE(std::string(kSimtTileCuh).find("simt_tile("), std::string::npos);
  EXPECT_NE(std::string(kWgmmaTmaCuh).find("wgmma_tma_tile("), std::string::npos);
}

}  // namespace
}  // namespace ember::kernels::matmul
