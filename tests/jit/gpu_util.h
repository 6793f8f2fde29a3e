#pragma once
// Shared by the GPU suites (Vulkan, or CUDA with EMBER_TEST_DEVICE=cuda:0): device availability,
// running one program on two devices, and comparing their outputs.
#include <ember/ember.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "autotune/store.h"
#include "frontend/detail/stream.h"
#include "jit/plan/fusion_switch.h"
#include "kernels/matmul/precision.h"
#include "kernels/tuning.h"
#include "tests/test_device.h"

namespace ember::testing {

// The device the GPU suites run on: EMBER_TEST_DEVICE (e.g. cuda:0), else vulkan:0.
inline Device gpu_device() {
  static const Device d = [] {
    const char* env = std::getenv("EMBER_TEST_DEVICE");
    return env != nullptr && *env != '\0' ? parse_test_device(env) : Device::vulkan(0);
  }();
  return d;
}

inline bool have_gpu_device() { return gpu_device().is_available(); }

// Skips without the test device, unless EMBER_REQUIRE_VULKAN is set (CI, the GPU machine): then
// it fails, so a missing driver cannot pass as a green run.
#define EMBER_REQUIRE_GPU_DEVICE()                                            \
  if (!::ember::testing::have_gpu_device()) {                                 \
    std::string name_ = ::ember::testing::gpu_device().to_string();           \
    if (std::getenv("EMBER_REQUIRE_VULKAN")) FAIL() << "no device " << name_; \
    GTEST_SKIP() << "no device " << name_;                                    \
  }

// CUDA-only tests: skipped where the test device is not CUDA, unless EMBER_REQUIRE_CUDA is set
// (scripts/gpu-run.sh sets it for its CUDA pass): then a missing CUDA device or missing tensor
// cores fail the test instead of letting it pass as skipped.
#define EMBER_SKIP_UNLESS(ok, why)                          \
  if (!(ok)) {                                              \
    if (std::getenv("EMBER_REQUIRE_CUDA")) FAIL() << (why); \
    GTEST_SKIP() << (why);                                  \
  }

// Whether the test device is CUDA with tensor cores (sm_80 and later, EMBER_MMA not 0).
inline bool tensor_core_device() {
  Device dev = gpu_device();
  if (dev.type() != DeviceType::Cuda || !dev.is_available()) return false;
  std::string target = detail::backend_for(dev).target();
  return target >= "sm_80" && jit::tensor_cores_enabled();
}

#define EMBER_REQUIRE_TENSOR_CORES() \
  EMBER_SKIP_UNLESS(::ember::testing::tensor_core_device(), "the test device has no tensor cores")

// A program builds its inputs from host data (identical on every device) and returns outputs.
using Program = std::function<std::vector<RawTensor>(const Device&)>;

// Host data for tests: uniform values in [lo, hi) from a seeded generator.
inline TensorData host_uniform(const Shape& s, uint32_t seed, double lo = -2.0, double hi = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(static_cast<float>(lo), static_cast<float>(hi));
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (float& x : v) x = dist(gen);
  return TensorData(v, s);
}

// A comparison's tolerance: the caller's, used exactly as given (an exact check asks for 0),
// or, when none is given, the output dtype's default widened to the GPU suites' usual
// rtol 1e-4, atol 1e-5 (device math differs from the CPU's in the last bits).
struct Tol {
  std::optional<double> rtol, atol;
  Tol() = default;
  Tol(double r, double a) : rtol(r), atol(a) {}
  Tolerance for_dtype(DType t) const {
    Tolerance d = Tolerance::default_for(t);
    return {rtol ? *rtol : std::max(d.rtol, 1e-4), atol ? *atol : std::max(d.atol, 1e-5)};
  }
};

// Runs `p` on the CPU and on `dev` and expects equal shapes, dtypes and values within tolerance.
inline void expect_same(const Program& p, const Device& dev, Tol tol = {}) {
  auto ref = p(Device::cpu_reference());
  auto got = p(dev);
  ASSERT_EQ(ref.size(), got.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    TensorData a = ref[i].to_data(), b = got[i].to_data();
    ASSERT_EQ(a.dtype(), b.dtype()) << "output " << i;
    ASSERT_EQ(a.shape(), b.shape()) << "output " << i;
    try {
      b.assert_approx_eq(a, tol.for_dtype(a.dtype()));
    } catch (const Error& e) {
      ADD_FAILURE() << "output " << i << " on " << dev.to_string() << ": " << e.what();
    }
  }
}
inline void expect_same(const Program& p, const Device& dev, double rtol, double atol) {
  expect_same(p, dev, Tol(rtol, atol));
}

// Runs the check with fusion on and off.
inline void expect_same_fused_and_unfused(const Program& p, Tol tol = {}) {
  Device dev = gpu_device();
  expect_same(p, dev, tol);
  jit::set_fusion_override(0);
  expect_same(p, dev, tol);
  jit::set_fusion_override(-1);
}
inline void expect_same_fused_and_unfused(const Program& p, double rtol, double atol) {
  expect_same_fused_and_unfused(p, Tol(rtol, atol));
}

// Autotune tests: a fresh cache directory (kernels and the autotune database) per test, and
// the autotune switches unset afterwards.
class AutotuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ember-autotune-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    setenv("EMBER_CACHE_DIR", dir_.c_str(), 1);
    // Every key these tests ask for is tuned, however long earlier tuning took.
    setenv("EMBER_TUNE_BUDGET", "unlimited", 1);
  }
  void TearDown() override {
    for (const char* name :
         {"EMBER_AUTOTUNE", "EMBER_ROW_WORKGROUP", "EMBER_CACHE_DIR", "EMBER_TUNE_BUDGET"})
      unsetenv(name);
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

// Records `winner` as the tuned configuration of `key` in the process's autotune store.
inline void store_winner(const std::string& key, const std::string& family,
                         const std::string& winner) {
  autotune::Entry e;
  e.key = key;
  e.family = family;
  e.winner = winner;
  e.winner_ms = 1;
  autotune::process_store().record(e);
}

// In an AutotuneTest: EMBER_AUTOTUNE=on from here on, or a skip where the test device's kernels
// are never tuned (jit::tunes_on: GPU Vulkan drivers).
#define EMBER_TUNE_ON_TEST_DEVICE()                                                          \
  if (!::ember::jit::tunes_on(::ember::detail::backend_for(::ember::testing::gpu_device()))) \
    GTEST_SKIP() << "kernels are not tuned on this device";                                  \
  setenv("EMBER_AUTOTUNE", "on", 1)

}  // namespace ember::testing
