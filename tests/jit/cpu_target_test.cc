// The CPU target itself (jit/codegen/cpp_source, jit/compile/cpu_compile, runtime/cpu): its
// tiers, its disk cache, its own exp and log, its threaded products. Expected values come from
// plain loops and the C library here; the differential suites (the op suite, the fuzzers) run
// on it too (ctest -L cpu_target).
#include <ember/ember.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "jit/compile/compile.h"
#include "jit/exec/executor.h"
#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

namespace fs = std::filesystem;

// Sets EMBER_CPU_COMPILE and a fresh kernel cache for one test; restores both after.
class CpuTarget : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ember-cpu-target-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    const char* mode = std::getenv("EMBER_CPU_COMPILE");
    saved_mode_ = mode != nullptr ? mode : "";
    const char* cache = std::getenv("EMBER_CACHE_DIR");
    saved_cache_ = cache != nullptr ? cache : "";
    setenv("EMBER_CACHE_DIR", dir_.c_str(), 1);
    jit::clear_plan_cache();
    jit::clear_memory_cache();
  }
  void TearDown() override {
    restore("EMBER_CPU_COMPILE", saved_mode_);
    restore("EMBER_CACHE_DIR", saved_cache_);
    jit::clear_plan_cache();
    jit::clear_memory_cache();
    fs::remove_all(dir_);
  }
  static void restore(const char* name, const std::string& value) {
    if (value.empty()) {
      unsetenv(name);
    } else {
      setenv(name, value.c_str(), 1);
    }
  }
  fs::path dir_;
  std::string saved_mode_, saved_cache_;
};

// y = exp(x) * 2 + 1 on the CPU: three primitives, one fused kernel once compiled.
std::vector<float> step(const Tensor<1>& x) {
  return ((x.exp() * 2.0) + 1.0).to_data().to_vec<float>();
}

// EMBER_CPU_COMPILE=auto: a small graph of small tensors runs a primitive at a time on the
// reference executor; the same graph on a large tensor is compiled into one kernel.
TEST_F(CpuTarget, SmallGraphsRunOnTheReferenceLargeOnesCompile) {
  setenv("EMBER_CPU_COMPILE", "auto", 1);
  Device cpu = Device::cpu();
  for (int64_t n : {int64_t{64}, int64_t{1} << 16}) {
    auto x = Tensor<1>::from_data(testing::host_uniform({n}, 1), cpu);
    sync(cpu);
    reset_stats(cpu);
    std::vector<float> got = step(x);
    const bool large = n >= (int64_t{1} << 16);
    EXPECT_EQ(stats(cpu).compiles, large ? 1 : 0) << n;
    // Fused, or one per primitive (exp, two constants, mul, add).
    EXPECT_EQ(stats(cpu).kernels_launched, large ? 1 : 5) << n;
    std::vector<float> xv = testing::host_uniform({n}, 1).to_vec<float>();
    for (int64_t i = 0; i < n; ++i) {
      const double want = std::exp(double(xv[i])) * 2 + 1;
      ASSERT_NEAR(got[i], want, 1e-6 * want) << i;
    }
  }
}

TEST_F(CpuTarget, DiskCacheServesAFreshProcessStateAndRebuildsADamagedEntry) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data(testing::host_uniform({64}, 2), cpu);
  sync(cpu);
  reset_stats(cpu);
  std::vector<float> want = step(x);
  EXPECT_EQ(stats(cpu).compiles, 1);
  // Another process would find the library on disk: nothing compiled.
  jit::clear_plan_cache();
  jit::clear_memory_cache();
  reset_stats(cpu);
  EXPECT_EQ(step(x), want);
  EXPECT_EQ(stats(cpu).compiles, 0);
  // A damaged library (its checksum no longer matches) is compiled again, never loaded. (The
  // damaged copy replaces the file by a rename: this process still maps the original.)
  int damaged = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "cpu")) {
    if (e.path().extension() != ".so") continue;
    fs::path copy = e.path().string() + ".damaged";
    fs::copy_file(e.path(), copy);
    fs::resize_file(copy, fs::file_size(copy) / 2);
    fs::rename(copy, e.path());
    ++damaged;
  }
  ASSERT_EQ(damaged, 1);
  jit::clear_plan_cache();
  jit::clear_memory_cache();
  reset_stats(cpu);
  EXPECT_EQ(step(x), want);
  EXPECT_EQ(stats(cpu).compiles, 1);
}

// The CPU target's exp and log (plain arithmetic, jit/codegen/cpp_source.cc) against the C
// library, special values exactly.
TEST_F(CpuTarget, ExpAndLogMatchTheCLibrary) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> xs = {0.0f,    -0.0f, 1.0f, -1.0f, 88.7f,  89.5f,  -87.0f,  -100.0f, -103.5f,
                           -110.0f, inf,   -inf, nan,   1e-40f, 1e-30f, 3.0e38f, 0.5f,    2.0f};
  for (int i = 0; i < 2000; ++i) xs.push_back(-90.0f + 180.0f * static_cast<float>(i) / 1999);
  auto x =
      Tensor<1>::from_data(TensorData(xs, Shape{static_cast<int64_t>(xs.size())}), Device::cpu());
  std::vector<float> e = x.exp().to_data().to_vec<float>();
  std::vector<float> l = x.abs().log().to_data().to_vec<float>();
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want_e = std::exp(xs[i]), want_l = std::log(std::fabs(xs[i]));
    if (std::isnan(want_e) || std::isinf(want_e) || want_e == 0.0f) {
      EXPECT_TRUE(std::isnan(e[i]) ? std::isnan(want_e) : e[i] == want_e) << "exp(" << xs[i] << ")";
    } else {
      EXPECT_NEAR(e[i], want_e, 3e-7 * want_e + 1e-44) << "exp(" << xs[i] << ")";
    }
    if (std::isnan(want_l) || std::isinf(want_l)) {
      EXPECT_TRUE(std::isnan(l[i]) ? std::isnan(want_l) : l[i] == want_l) << "log(" << xs[i] << ")";
    } else {
      EXPECT_NEAR(l[i], want_l, 3e-7 * std::fabs(want_l) + 1e-7) << "log(" << xs[i] << ")";
    }
  }
}

// Products split over threads (rows or columns, whichever side is longer), with transposed
// operands read in place, against a plain loop.
TEST_F(CpuTarget, ThreadedProductsMatchPlainLoops) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  for (auto [m, n, k] : {std::array<int64_t, 3>{96, 40, 80}, {40, 96, 80}, {7, 300, 129}}) {
    TensorData ad = testing::host_uniform({k, m}, 3), bd = testing::host_uniform({n, k}, 4);
    auto a = Tensor<2>::from_data(ad, Device::cpu()).transpose();  // [m, k], column-major
    auto b = Tensor<2>::from_data(bd, Device::cpu()).transpose();  // [k, n], column-major
    std::vector<float> got = (a.matmul(b) * 1.0).to_data().to_vec<float>();
    std::vector<float> av = ad.to_vec<float>(), bv = bd.to_vec<float>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < k; ++p) want += double(av[p * m + i]) * double(bv[j * k + p]);
        ASSERT_NEAR(got[i * n + j], want, 1e-4 * (1 + std::fabs(want)))
            << m << "x" << n << "x" << k;
      }
    }
  }
}

// Same seed, same numbers, on the reference executor and in compiled kernels.
TEST_F(CpuTarget, RandomDrawsMatchTheReferenceBitForBit) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  auto draw = [](const Device& dev) {
    seed(123);
    auto u = Tensor<1>::random({1000}, Distribution::uniform(-0.7, 0.3), dev);
    auto g = Tensor<1>::random({1000}, Distribution::normal(0.1, 2.0), dev);
    auto b = Tensor<1>::random({1000}, Distribution::bernoulli(0.3), dev);
    return std::vector<TensorData>{u.to_data(), g.to_data(), b.to_data()};
  };
  auto first = draw(Device::cpu_reference());
  auto second = draw(Device::cpu());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].to_vec<float>(), second[i].to_vec<float>()) << "distribution " << i;
  }
}

// The host CPU traps on integer division by zero and on INT_MIN / -1, where GPUs do not: the
// compiled kernels must report the first as the reference does and wrap the second.
TEST_F(CpuTarget, IntegerDivisionNeverTraps) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  for (const Device& dev : {Device::cpu_reference(), Device::cpu()}) {
    const int32_t min = std::numeric_limits<int32_t>::min();
    auto a = Tensor<1, Int>::from_data(TensorData(std::vector<int32_t>{min, 7, -7}, Shape{3}), dev);
    auto m1 = Tensor<1, Int>::from_data(TensorData(std::vector<int32_t>{-1, -1, 2}, Shape{3}), dev);
    EXPECT_EQ((a / m1).to_data().to_vec<int32_t>(), (std::vector<int32_t>{min, -7, -3}))
        << dev.to_string();
    EXPECT_EQ((a % m1).to_data().to_vec<int32_t>(), (std::vector<int32_t>{0, 0, 1}))
        << dev.to_string();
    for (DType t : {DType::I32, DType::U8}) {
      auto x =
          Tensor<1, Int>::from_data(TensorData(std::vector<int32_t>{6, 5}, Shape{2}), dev).cast(t);
      auto zero =
          Tensor<1, Int>::from_data(TensorData(std::vector<int32_t>{3, 0}, Shape{2}), dev).cast(t);
      testing::expect_error([&] { (x / zero).to_data(); }, {"division by zero"});
      testing::expect_error([&] { (x % zero).to_data(); }, {"division by zero"});
    }
  }
}

// The generated sources of the kernels compiled while `body` runs and the plans' descriptions
// (EMBER_DUMP=kernels,plan), concatenated.
template <class Body>
std::string sources_of(const fs::path& dir, const Body& body) {
  setenv("EMBER_DUMP", "kernels,plan", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  body();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  std::string all;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path());
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

// Row outputs of 8 MiB and more go to memory by non-temporal stores from a staged row, and a
// softmax's rows run as a pipeline: the next row's max inside this row's sum, the previous
// row's outputs streamed in its chunks (kernels/row/family.cc). Rows of 4099 floats start at
// every alignment and end in a partial chunk; two threads split the 520 rows at 260, so a
// thread's first row takes its max alone. NaN and infinities sit in rows on both paths (the
// pipelined max ignores NaN and checks a sum of the same elements). Softmax, a layer norm
// (streamed, not pipelined) and a softmax over a masked sum against plain loops in double.
TEST_F(CpuTarget, LargeRowsRunAsAPipelineAndStreamTheirOutputsPastTheCaches) {
  setenv("EMBER_CPU_COMPILE", "always", 1);
  const int64_t rows = 520, len = 4099;  // 8.1 MiB of f32
  std::vector<float> xv = testing::host_uniform({rows, len}, 5).to_vec<float>();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  auto at = [&](int64_t r, int64_t i) -> float& { return xv[r * len + i]; };
  at(260, 7) = nan;        // a thread's first row
  at(261, len - 1) = nan;  // carried from the row before
  at(262, 5) = nan;        // early in a carried row
  at(100, 3) = inf;        // infinities of both signs: the sum check is NaN, max is +inf
  at(100, 4000) = -inf;
  at(101, 2048) = inf;                                  // +inf alone
  for (int64_t i = 0; i < len; ++i) at(102, i) = -inf;  // -inf throughout
  at(0, 0) = 1e30f;                                     // a large first element of the first row
  TensorData xd(xv, Shape{rows, len});
  std::vector<float> got_softmax, got_norm, got_scaled;
  std::string sources = sources_of(dir_ / "dump", [&] {
    auto x = Tensor<2>::from_data(xd, Device::cpu());
    got_softmax = activation::softmax(x, 1).to_data().to_vec<float>();
    auto centered = x - x.mean_dim(1);
    got_norm =
        (centered / ((centered * centered).mean_dim(1) + 1e-5).sqrt()).to_data().to_vec<float>();
    // A softmax whose sum takes the elements above 0.5 only, which a NaN is not: only the max
    // carries a NaN into the output. (Planned today as a row max, a pointwise mask and a row
    // sum, so it checks the streamed outputs of plain row kernels.)
    auto e = (x - x.max_dim(1)).exp();
    got_scaled = (e / e.zeros_like().mask_where(x.greater_elem(0.5), e).sum_dim(1))
                     .to_data()
                     .to_vec<float>();
  });
  // Both kernels streamed their outputs, the softmax's as a pipeline (its plain max); the
  // plan dump names the statement.
  EXPECT_NE(sources.find("reduction(max:"), std::string::npos) << sources;
  EXPECT_NE(sources.find("stream_store"), std::string::npos);
  size_t streamed = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "dump")) {
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    streamed += text.find("em_stream_f32(b") != std::string::npos;
  }
  EXPECT_EQ(streamed, 3u);
  auto same = [](double got, double want, double tol) {
    if (std::isnan(want) || std::isinf(want))
      return std::isnan(want) ? std::isnan(got) : got == want;
    return std::fabs(got - want) <= tol;
  };
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = xv.data() + r * len;
    double max = row[0], sum = 0, mean = 0, var = 0, count = 0;
    for (int64_t i = 0; i < len; ++i) {
      max = (std::isnan(max) || max > row[i]) ? max : double(row[i]);  // NaN wins
    }
    for (int64_t i = 0; i < len; ++i) {
      sum += std::exp(double(row[i]) - max), mean += row[i];
      count += row[i] > 0.5f ? std::exp(double(row[i]) - max) : 0.0;  // the partial sum
    }
    mean /= len;
    for (int64_t i = 0; i < len; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= len;
    for (int64_t i = 0; i < len; ++i) {
      const double p = std::exp(double(row[i]) - max) / sum;
      ASSERT_TRUE(same(got_softmax[r * len + i], p, 1e-5 * std::fabs(p) + 1e-12))
          << "softmax row " << r << ", " << i << ": " << got_softmax[r * len + i] << " vs " << p;
      const double scaled = std::exp(double(row[i]) - max) / count;
      ASSERT_TRUE(same(got_scaled[r * len + i], scaled, 1e-5 * std::fabs(scaled) + 1e-12))
          << "scaled row " << r << ", " << i << ": " << got_scaled[r * len + i] << " vs " << scaled;
      if (r == 0 || (r >= 100 && r <= 102) || (r >= 260 && r <= 262)) continue;  // cancellation
      const double n = (row[i] - mean) / std::sqrt(var + 1e-5);
      ASSERT_TRUE(same(got_norm[r * len + i], n, 2e-5 * (1 + std::fabs(n))))
          << "norm row " << r << ", " << i << ": " << got_norm[r * len + i] << " vs " << n;
    }
  }
}

}  // namespace
}  // namespace ember
