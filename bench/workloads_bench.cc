// The workloads of ../shared/BENCHMARKS.md, fused and unfused, on EMBER_DEVICE (default: the best
// device). Sizes are BENCHMARKS.md's on GPUs and divided by EMBER_BENCH_SHRINK (default 64 on
// the CPU and CPU Vulkan drivers) elsewhere. Times are device timestamps where the device has
// them (manual time), else wall time; the first run of each workload (compiles) is excluded.
// Counters: bytes_per_second (bytes a perfect kernel moves), kernels per iteration, peak memory.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>

namespace ember {
namespace {

Device bench_device() { return Device::default_device(); }

int64_t shrink() {
  if (const char* s = std::getenv("EMBER_BENCH_SHRINK")) return std::max(1L, std::atol(s));
  Device d = bench_device();
  bool gpu = d.type() == DeviceType::Cuda ||
             (d.type() == DeviceType::Vulkan && std::getenv("EMBER_BENCH_GPU") != nullptr);
  return gpu ? 1 : 64;
}

// Runs `step` (which records work) and syncs, timing each iteration with device timestamps when
// the device has them (wall_time: always the whole step, host overhead included).
void run_timed(benchmark::State& state, bool fused, const std::function<void()>& step, double bytes,
               double flops = 0, bool wall_time = false) {
  Device dev = bench_device();
  FusionGuard guard(fused);
  step();  // warm-up: compiles, allocates
  sync(dev);
  take_device_time_ms(dev);
  reset_stats(dev);
  int64_t iterations = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    step();
    sync(dev);
    double device_ms = take_device_time_ms(dev);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(device_ms >= 0 && !wall_time ? device_ms / 1e3 : wall);
    ++iterations;
  }
  Stats s = stats(dev);
  state.counters["kernels"] =
      static_cast<double>(s.kernels_launched) / std::max<int64_t>(1, iterations);
  state.counters["peak_MiB"] = static_cast<double>(s.peak_bytes) / (1 << 20);
  if (bytes > 0) {
    state.counters["GB"] =
        benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  }
  if (flops > 0) {
    state.counters["TFLOP"] =
        benchmark::Counter(flops / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  }
  state.SetLabel(dev.to_string() + (fused ? " fused" : " unfused"));
}

Tensor<1> vec(int64_t n, uint32_t seed) {
  ember::seed(seed);
  auto t = Tensor<1>::random({n}, Distribution::uniform(-1, 1), bench_device());
  sync(bench_device());
  return t;
}

Tensor<2> mat(int64_t r, int64_t c, uint32_t seed) {
  ember::seed(seed);
  auto t = Tensor<2>::random({r, c}, Distribution::uniform(-1, 1), bench_device());
  sync(bench_device());
  return t;
}

void BM_copy_1GiB(benchmark::State& state) {
  int64_t n = (int64_t{1} << 28) / shrink();
  auto x = vec(n, 1);
  Tensor<1> y;
  run_timed(
      state, state.range(0), [&] { y = x + 0.0; }, 8.0 * n);
}

void BM_gelu_64M(benchmark::State& state) {
  int64_t n = (int64_t{1} << 26) / shrink();
  auto x = vec(n, 2);
  Tensor<1> y;
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  run_timed(
      state, state.range(0), [&] { y = x * ((x * inv_sqrt2).erf() + 1.0) / 2.0; }, 8.0 * n);
}

void BM_layernorm_16384x4096(benchmark::State& state) {
  int64_t rows = 16384 / shrink(), cols = 4096;
  auto x = mat(rows, cols, 3);
  auto w = mat(1, cols, 4);
  auto b = mat(1, cols, 5);
  Tensor<2> y;
  run_timed(
      state, state.range(0),
      [&] {
        auto mean = x.mean_dim(1);
        auto centered = x - mean;
        auto var = (centered * centered).mean_dim(1);
        y = centered / (var + 1e-5).sqrt() * w + b;
      },
      8.0 * rows * cols);
}

void BM_softmax_16384x4096(benchmark::State& state) {
  int64_t rows = 16384 / shrink(), cols = 4096;
  auto x = mat(rows, cols, 6);
  Tensor<2> y;
  run_timed(
      state, state.range(0),
      [&] {
        auto e = (x - x.max_dim(1)).exp();
        y = e / e.sum_dim(1);
      },
      8.0 * rows * cols);
}

void BM_adam_64M(benchmark::State& state) {
  int64_t n = (int64_t{1} << 26) / shrink();
  auto p = vec(n, 7), g = vec(n, 8), m = vec(n, 9), v = vec(n, 10).abs();
  sync(bench_device());
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  int t = 1;
  run_timed(
      state, state.range(0),
      [&] {
        m = m * b1 + g * (1 - b1);
        v = v * b2 + g * g * (1 - b2);
        double c1 = 1 - std::pow(b1, t), c2 = 1 - std::pow(b2, t);
        p = p - (m / c1) * lr / ((v / c2).sqrt() + eps);
        ++t;
      },
      28.0 * n);
}

void BM_matmul_4096_f32(benchmark::State& state) {
  int64_t n = 4096 / (shrink() > 1 ? 8 : 1);
  auto a = mat(n, n, 11), b = mat(n, n, 12);
  Tensor<2> c;
  run_timed(
      state, state.range(0), [&] { c = a.matmul(b); }, 0, 2.0 * n * n * n);
}

void BM_chain100_1K(benchmark::State& state) {
  auto x0 = vec(1024, 13);
  Tensor<1> x;
  run_timed(
      state, state.range(0),
      [&] {
        x = x0;
        for (int i = 0; i < 100; ++i) x = x * 1.0001 + 0.0001;
      },
      0, 0, /*wall_time=*/true);
}

#define EMBER_WORKLOAD(fn) \
  BENCHMARK(fn)->ArgName("fused")->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond)

EMBER_WORKLOAD(BM_copy_1GiB);
EMBER_WORKLOAD(BM_gelu_64M);
EMBER_WORKLOAD(BM_layernorm_16384x4096);
EMBER_WORKLOAD(BM_softmax_16384x4096);
EMBER_WORKLOAD(BM_adam_64M);
EMBER_WORKLOAD(BM_matmul_4096_f32);
EMBER_WORKLOAD(BM_chain100_1K);

}  // namespace
}  // namespace ember

BENCHMARK_MAIN();
