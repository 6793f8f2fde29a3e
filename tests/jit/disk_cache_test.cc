// The SPIR-V disk cache: entries persist, are verified on load, and corrupt ones are rebuilt.
#include <gtest/gtest.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "jit/compile/compile.h"
#include "jit/exec/executor.h"
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

// Runs two different programs; returns their results.
std::pair<std::vector<float>, std::vector<float>> run_two() {
  jit::clear_memory_cache();
  jit::clear_plan_cache();
  Device dev = testing::gpu_device();
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0, 4.0}, dev);
  auto a = (x * 3.0 + 1.0).to_data().to_vec<float>();
  auto b = (x.exp() - x).to_data().to_vec<float>();
  return {a, b};
}

std::vector<fs::path> entries_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".bin") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Entries record the key they were stored under: two entries swapped on disk (each with a valid
// checksum) are recognised and rebuilt, never run as each other's kernel (which gave wrong
// results with no error). An entry whose payload is not valid SPIR-V (checksum and key valid) is
// rebuilt too, instead of failing every later run.
TEST(DiskCache, EntriesVerifyTheirKeyAndContent) {
  EMBER_REQUIRE_GPU_DEVICE();
  fs::path dir = fs::temp_directory_path() / ("ember_cache_keys_" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  const std::vector<float> xs = {1, 2, 3, 4};
  auto check = [&](const std::pair<std::vector<float>, std::vector<float>>& r) {
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_FLOAT_EQ(r.first[i], xs[i] * 3 + 1);
      EXPECT_NEAR(r.second[i], std::exp(xs[i]) - xs[i], 1e-4);
    }
  };
  check(run_two());
  std::vector<fs::path> entries = entries_in(dir);
  ASSERT_EQ(entries.size(), 2u);
  // Swap the two files.
  fs::path tmp = dir / "swap.tmp";
  fs::rename(entries[0], tmp);
  fs::rename(entries[1], entries[0]);
  fs::rename(tmp, entries[1]);
  reset_stats(testing::gpu_device());
  check(run_two());
  EXPECT_EQ(stats(testing::gpu_device()).compiles, 2) << "both entries rebuilt";
  // Rebuilt: the next run loads both from disk without compiling.
  jit::clear_memory_cache();
  reset_stats(testing::gpu_device());
  check(run_two());
  EXPECT_EQ(stats(testing::gpu_device()).compiles, 0);

  // A payload that is not SPIR-V, under a valid header, key and checksum.
  std::string bytes;
  {
    std::ifstream in(entries[0], std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t header = 12 + 8 + 16;  // magic, format, size; xxh64; 128-bit key
  ASSERT_GT(bytes.size(), header + 8);
  for (size_t i = header; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  uint64_t checksum = XXH64(bytes.data() + header, bytes.size() - header, 0);
  std::memcpy(bytes.data() + 12, &checksum, 8);
  std::ofstream(entries[0], std::ios::binary | std::ios::trunc) << bytes;
  reset_stats(testing::gpu_device());
  check(run_two());
  EXPECT_EQ(stats(testing::gpu_device()).compiles, 1);
  unsetenv("EMBER_CACHE_DIR");
  fs::remove_all(dir);
}

// An entry that is valid SPIR-V under a valid header, key and checksum but that the driver
// rejects when it creates the pipeline (its entry point renamed, so "main" is not found) is
// dropped and recompiled from source: the run gives the plain loops' values and the next run
// loads the rewritten entry. On CPU drivers (lavapipe) only, which report such a module as an
// error: a pipeline for a missing entry point is invalid usage a GPU driver need not survive.
TEST(DiskCache, EntryWhosePipelineFailsIsRebuilt) {
  EMBER_REQUIRE_GPU_DEVICE();
  const runtime::Backend& backend = detail::backend_for(testing::gpu_device());
  if (backend.kind() != runtime::DeviceKind::Vulkan || !backend.runs_on_cpu())
    GTEST_SKIP() << "a missing entry point is only safe to ask for on a CPU Vulkan driver";
  std::string templ = (fs::temp_directory_path() / "ember-cache-pipeline-XXXXXX").string();
  ASSERT_NE(mkdtemp(templ.data()), nullptr);
  const fs::path dir = templ;
  setenv("EMBER_CACHE_DIR", dir.c_str(), 1);
  const std::vector<float> xs = {1, 2, 3, 4};
  auto check = [&](const std::pair<std::vector<float>, std::vector<float>>& r) {
    ASSERT_EQ(r.first.size(), xs.size());
    ASSERT_EQ(r.second.size(), xs.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_FLOAT_EQ(r.first[i], xs[i] * 3 + 1);
      EXPECT_NEAR(r.second[i], std::exp(xs[i]) - xs[i], 1e-4);
    }
  };
  check(run_two());
  std::vector<fs::path> entries = entries_in(dir);
  ASSERT_EQ(entries.size(), 2u);
  const size_t header = 12 + 8 + 16;  // magic, format, size; xxh64; 128-bit key
  const std::string from("main\0\0\0\0", 8), to("niam\0\0\0\0", 8);
  for (const fs::path& entry : entries) {
    std::string bytes;
    {
      std::ifstream in(entry, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), header + 20);
    int renamed = 0;  // the entry point's name and the function's debug name, word-aligned
    for (size_t at = header; at + 8 <= bytes.size(); at += 4) {
      if (bytes.compare(at, 8, from) == 0) {
        bytes.replace(at, 8, to);
        ++renamed;
      }
    }
    ASSERT_GE(renamed, 1) << entry;
    uint64_t checksum = XXH64(bytes.data() + header, bytes.size() - header, 0);
    std::memcpy(bytes.data() + 12, &checksum, 8);
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  }
  reset_stats(testing::gpu_device());
  check(run_two());
  EXPECT_EQ(stats(testing::gpu_device()).compiles, 2) << "both entries recompiled";
  jit::clear_memory_cache();
  reset_stats(testing::gpu_device());
  check(run_two());
  EXPECT_EQ(stats(testing::gpu_device()).compiles, 0) << "the rewritten entries load";
  unsetenv("EMBER_CACHE_DIR");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
