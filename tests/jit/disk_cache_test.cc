// The SPIR-V disk cache: entries persist, are verified on load, and corrupt ones are rebuilt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "jit/compile.h"
#include "jit/executor.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

// Runs a small program on Vulkan from an empty in-memory cache; returns (compiles, cache hits).
std::pair<int64_t, int64_t> run_once() {
  jit::clear_memory_cache();
  jit::clear_plan_cache();
  Device dev = testing::gpu_device();
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0, 4.0}, dev);
  sync(dev);
  reset_stats(dev);
  auto y = (x * 3.0 + 1.0).sqrt();
  auto v = y.to_data().to_vec<float>();
  EXPECT_NEAR(v[3], std::sqrt(13.0f), 1e-5);
  Stats s = stats(dev);
  return {s.compiles, s.cache_hits};
}

TEST(DiskCache, PersistsVerifiesAndRebuilds) {
  EMBER_REQUIRE_GPU_DEVICE();
  fs::path dir = fs::temp_directory_path() / ("ember_cache_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  auto [compiles, hits] = run_once();
  EXPECT_EQ(compiles, 1);
  std::vector<fs::path> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".bin") entries.push_back(e.path());
  }
  ASSERT_EQ(entries.size(), 1u);

  auto [compiles2, hits2] = run_once();  // a new process would see the same: loaded from disk
  EXPECT_EQ(compiles2, 0);
  EXPECT_EQ(hits2, 1);

  // Garbage and a truncated file are both detected, recompiled and rewritten.
  for (bool truncate : {false, true}) {
    auto size = fs::file_size(entries[0]);
    if (truncate) {
      fs::resize_file(entries[0], size / 2);
    } else {
      std::ofstream(entries[0], std::ios::binary | std::ios::trunc) << std::string(size, 'x');
    }
    auto [compiles3, hits3] = run_once();
    EXPECT_EQ(compiles3, 1) << (truncate ? "truncated" : "garbage");
    auto [compiles4, hits4] = run_once();
    EXPECT_EQ(compiles4, 0) << "rewritten entry is valid again";
  }
  unsetenv("EMBER_CACHE_DIR");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
