// Fusion of the canonical patterns, read from the stats API on Vulkan; each fused kernel's
// results are checked too, against plain loops in double over the same host data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

std::vector<double> values(const TensorData& d) { return d.to_vec<double>(); }

// Expects `got` (read from the device) to hold `want`, element by element, within f32 rounding.
template <int D>
void expect_values(const Tensor<D>& got, const std::vector<double>& want, double tol = 1e-5) {
  std::vector<double> g = got.to_data().template to_vec<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(g[i], want[i], tol * (1 + std::abs(want[i]))) << "element " << i;
  }
}

// Row-wise softmax of a rows x cols matrix.
std::vector<double> softmax_rows(const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* in = &x[r * cols];
    double mx = *std::max_element(in, in + cols), sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(in[c] - mx);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(in[c] - mx) / sum;
  }
  return y;
}

// a (m x k) times b (k x n).
std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                           int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t l = 0; l < k; ++l) c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}

// Kernels launched (and compiles) by running `f` once with its inputs already on the device.
struct Count {
  int64_t kernels, compiles, fused;
};

template <class F>
Count count_kernels(const Device& dev, F&& f) {
  sync(dev);
  reset_stats(dev);
  f();
  sync(dev);
  Stats s = stats(dev);
  return {s.kernels_launched, s.compiles, s.ops_fused};
}

TEST(KernelCount, GeluIsOneKernel) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(host_uniform({64, 33}, 1), dev);
  Tensor<2> y;
  // The Burn README's custom GELU, written with basic ops.
  Count c = count_kernels(dev, [&] { y = x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0; });
  EXPECT_EQ(c.kernels, 1);
  EXPECT_GE(c.fused, 5);
  std::vector<double> want = values(host_uniform({64, 33}, 1));
  for (double& v : want) v = v * (std::erf(v / std::sqrt(2.0)) + 1) / 2;
  expect_values(y, want);
}

TEST(KernelCount, SoftmaxOverRowsIsOneKernel) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(host_uniform({16, 100}, 2), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] {
    auto e = (x - x.max_dim(1)).exp();
    y = e / e.sum_dim(1);
  });
  EXPECT_EQ(c.kernels, 1);
  expect_values(y, softmax_rows(values(host_uniform({16, 100}, 2)), 16, 100));
}

TEST(KernelCount, LayerNormAtMostTwoKernels) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(host_uniform({8, 64}, 3), dev);
  auto w = Tensor<2>::from_data(host_uniform({1, 64}, 4), dev);
  auto b = Tensor<2>::from_data(host_uniform({1, 64}, 5), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] {
    auto mean = x.mean_dim(1);
    auto centered = x - mean;
    auto var = (centered * centered).mean_dim(1);
    y = centered / (var + 1e-5).sqrt() * w + b;
  });
  EXPECT_LE(c.kernels, 2);
  std::vector<double> xs = values(host_uniform({8, 64}, 3)), ws = values(host_uniform({1, 64}, 4)),
                      bs = values(host_uniform({1, 64}, 5)), want(xs.size());
  for (int r = 0; r < 8; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 64; ++i) mean += xs[r * 64 + i] / 64;
    for (int i = 0; i < 64; ++i) var += (xs[r * 64 + i] - mean) * (xs[r * 64 + i] - mean) / 64;
    for (int i = 0; i < 64; ++i)
      want[r * 64 + i] = (xs[r * 64 + i] - mean) / std::sqrt(var + 1e-5) * ws[i] + bs[i];
  }
  expect_values(y, want, 1e-4);
}

TEST(KernelCount, AdamUpdateIsOneKernelWithThreeOutputs) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto p = Tensor<1>::from_data(host_uniform({1000}, 6), dev);
  auto g = Tensor<1>::from_data(host_uniform({1000}, 7), dev);
  auto m = Tensor<1>::from_data(host_uniform({1000}, 8), dev);
  auto v = Tensor<1>::from_data(host_uniform({1000}, 9, 0.0, 1.0), dev);
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8, t = 3;
  Count c = count_kernels(dev, [&] {
    m = m * b1 + g * (1 - b1);
    v = v * b2 + g * g * (1 - b2);
    auto m_hat = m / (1 - std::pow(b1, t));
    auto v_hat = v / (1 - std::pow(b2, t));
    p = p - m_hat * lr / (v_hat.sqrt() + eps);
  });
  EXPECT_EQ(c.kernels, 1);
  std::vector<double> ps = values(host_uniform({1000}, 6)), gs = values(host_uniform({1000}, 7)),
                      ms = values(host_uniform({1000}, 8)),
                      vs = values(host_uniform({1000}, 9, 0.0, 1.0));
  for (size_t i = 0; i < ps.size(); ++i) {
    ms[i] = ms[i] * b1 + gs[i] * (1 - b1);
    vs[i] = vs[i] * b2 + gs[i] * gs[i] * (1 - b2);
    double m_hat = ms[i] / (1 - std::pow(b1, t)), v_hat = vs[i] / (1 - std::pow(b2, t));
    ps[i] -= m_hat * lr / (std::sqrt(v_hat) + eps);
  }
  expect_values(m, ms);
  expect_values(v, vs);
  expect_values(p, ps);
}

TEST(KernelCount, MatmulBiasReluIsOneKernel) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(host_uniform({20, 30}, 10), dev);
  auto w = Tensor<2>::from_data(host_uniform({30, 17}, 11), dev);
  auto b = Tensor<2>::from_data(host_uniform({1, 17}, 12), dev);
  Tensor<2> y;
  Count c = count_kernels(dev, [&] { y = activation::relu(x.matmul(w) + b); });
  EXPECT_EQ(c.kernels, 1);
  std::vector<double> want =
      matmul(values(host_uniform({20, 30}, 10)), values(host_uniform({30, 17}, 11)), 20, 30, 17);
  std::vector<double> bs = values(host_uniform({1, 17}, 12));
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0, want[i] + bs[i % 17]);
  expect_values(y, want, 1e-4);
}

TEST(KernelCount, RepeatedStepCompilesNothingNew) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(host_uniform({8, 16}, 13), dev);
  auto w = Tensor<2>::from_data(host_uniform({16, 16}, 14), dev);
  auto step = [&] {
    auto h = activation::relu(x.matmul(w));
    x = activation::softmax(h, 1) * 0.5 + x * 0.5;
  };
  count_kernels(dev, step);  // first step: may compile
  Count c = count_kernels(dev, step);
  EXPECT_EQ(c.compiles, 0);
  EXPECT_GT(c.kernels, 0);
  // Both steps computed: x <- softmax(relu(x w)) / 2 + x / 2, twice.
  std::vector<double> xs = values(host_uniform({8, 16}, 13)),
                      ws = values(host_uniform({16, 16}, 14));
  for (int s = 0; s < 2; ++s) {
    std::vector<double> h = matmul(xs, ws, 8, 16, 16);
    for (double& v : h) v = std::max(0.0, v);
    std::vector<double> sm = softmax_rows(h, 8, 16);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = sm[i] * 0.5 + xs[i] * 0.5;
  }
  expect_values(x, xs, 1e-4);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(BufferReuse, DyingInputsLendTheirBuffers) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  const int64_t n = 1 << 16;  // 256 KiB per f32 tensor
  auto x = Tensor<1>::from_data(testing::host_uniform({n}, 21), dev);
  sync(dev);
  FusionGuard unfused(false);  // 20 pointwise kernels, each output the size of its input
  // A first run tunes the kernels where they are tuned (CUDA): a kernel being tuned lends no
  // buffer (its candidates run again and again over their inputs), so it is measured second.
  {
    auto w = x;
    for (int i = 0; i < 10; ++i) w = w * 1.5 + 1.0;
    w.to_data();
  }
  reset_stats(dev);
  int64_t before = stats(dev).bytes_in_use;
  auto y = x;
  for (int i = 0; i < 10; ++i) y = y * 1.5 + 1.0;
  auto data = y.to_data();
  int64_t peak = stats(dev).peak_bytes - before;
  // Without reuse every intermediate would be held until the flush ends (20 x 256 KiB).
  EXPECT_LT(peak, 4 * n * 4);
  double expect = data.to_vec<double>()[0];
  double v = x.to_data().to_vec<double>()[0];
  for (int i = 0; i < 10; ++i) v = static_cast<float>(static_cast<float>(v * 1.5f) + 1.0f);
  EXPECT_NEAR(expect, v, 1e-3 * std::abs(v));
}

// A broadcast product reduced at once never exists in memory: [n,1] * [1,n] then sum_dim is
// a reduction reading the two vectors (it stored the n x n product first).
TEST(BufferReuse, BroadcastProductIsReducedWithoutBeingStored) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  const int64_t n = 8192;  // the product would be 256 MiB (the case)
  auto a = Tensor<2>::from_data(testing::host_uniform({n, 1}, 22), dev);
  auto b = Tensor<2>::from_data(testing::host_uniform({1, n}, 23), dev);
  sync(dev);
  Tensor<2> rows, cols;
  reset_stats(dev);
  int64_t before = stats(dev).bytes_in_use;
  Count c = count_kernels(dev, [&] {
    rows = (a * b).sum_dim(1);
    cols = (a * b).sum_dim(0);
  });
  int64_t peak = stats(dev).peak_bytes - before;
  // GPU targets sum the 8192 columns in two passes (parts of the rows, then the parts:
  // kernels/row/split_reductions.h); the CPU target in one.
  EXPECT_EQ(c.kernels, dev.type() == DeviceType::Cpu ? 2 : 3);
  EXPECT_LT(peak, n * n * 4 / 4) << "the product was stored";
  std::vector<double> av = values(testing::host_uniform({n, 1}, 22));
  std::vector<double> bv = values(testing::host_uniform({1, n}, 23));
  std::vector<double> want_rows(n, 0.0), want_cols(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      want_rows[i] += av[i] * bv[j];
      want_cols[j] += av[i] * bv[j];
    }
  }
  expect_values(rows, want_rows, 1e-4);
  expect_values(cols, want_cols, 1e-4);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(PlanCache, RepeatedStepReusesItsPlanAndKernels) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(testing::host_uniform({8, 32}, 31), dev);
  auto step = [&](double scale) { return activation::softmax(x * scale, 1).sum_dim(0); };
  // Twice: a flush that tunes a kernel (row kernels on CUDA) does not cache its plan, which was
  // keyed with the untuned variant; the next flush plans with the stored winner and caches it.
  step(1.0).to_data();
  step(1.0).to_data();
  reset_stats(dev);
  auto y = step(2.5).to_data();  // same structure, another scalar: one plan-cache hit
  Stats s = stats(dev);
  EXPECT_EQ(s.compiles, 0);
  EXPECT_GE(s.cache_hits, 1);
  EXPECT_GE(s.lowerings_reused, 1) << "same layout: the last lowering is reused";
  // The new scalar took effect (the reused lowering's scalar parameters were rewritten).
  auto ref =
      activation::softmax(
          Tensor<2>::from_data(testing::host_uniform({8, 32}, 31), Device::cpu_reference()) * 2.5,
          1)
          .sum_dim(0)
          .to_data();
  y.assert_approx_eq(ref, Tolerance::rel_abs(1e-4, 1e-5));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(PlanCache, PadsOfOneStructureButOtherPaddedDims) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({3, 4}, 41), dev);
    auto a = x.pad({{1, 1}, {0, 0}}, 7.0);  // pads dim 1
    a.to_data();
    auto b = x.pad({{0, 0}, {1, 1}}, 7.0);  // pads dim 0: same graph structure otherwise
    return {a.raw(), b.raw()};
  });
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(PlanCache, SameStructureOtherSizes) {
  EMBER_REQUIRE_GPU_DEVICE();
  // One structure, three sizes in a row: every hit must use this graph's sizes.
  for (int64_t n : {1024, 64, 4096 * 3}) {
    testing::expect_same(
        [n](const Device& dev) -> std::vector<RawTensor> {
          auto x = Tensor<2>::from_data(testing::host_uniform({4, n}, 51), dev);
          auto y = activation::softmax(x * 2.0 + 1.0, 1);
          return {y.raw(), (x * 3.0).raw()};
        },
        testing::gpu_device());
  }
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// A reused lowering must take each flush's runtime scalars: RNG seeds and offsets, fill and pad
// values. Two flushes of one layout with different scalars, each against the CPU.
TEST(PlanCache, ReusedLoweringTakesNewSeedsAndFillValues) {
  EMBER_REQUIRE_GPU_DEVICE();
  auto run = [](const Device& dev, uint64_t s, double fill) {
    auto x = Tensor<2>::from_data(testing::host_uniform({4, 64}, 61), dev);
    seed(s);
    auto r = Tensor<2>::random({4, 64}, Distribution::uniform(0, 1), dev);
    return ((x * r).pad({{1, 1}, {0, 0}}, fill) + fill).to_data();
  };
  Device gpu = testing::gpu_device();
  run(gpu, 1, 7.0);
  reset_stats(gpu);
  for (auto [s, fill] : {std::pair<uint64_t, double>{2, -3.0}, {3, 0.5}}) {
    TensorData got = run(gpu, s, fill);
    got.assert_approx_eq(run(Device::cpu_reference(), s, fill), Tolerance::rel_abs(1e-5, 1e-6));
  }
  EXPECT_GE(stats(gpu).lowerings_reused, 2);
  EXPECT_EQ(stats(gpu).compiles, 0);
}

}  // namespace
}  // namespace ember
