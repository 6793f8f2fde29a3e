// CPU reference-backend benchmarks: scaled-down versions of BENCHMARKS.md workloads. They
// measure the reference path (one primitive at a time, no fusion yet); the fused/unfused suite
// across devices arrives with the JIT (issue 7).
#include <benchmark/benchmark.h>

#include <cmath>

#include <ember/ember.h>

namespace ember {
namespace {

const Device kCpu = Device::cpu();

// Effective bandwidth: the bytes a perfect kernel must move per iteration (BENCHMARKS.md).
void set_bytes(benchmark::State& state, double bytes_per_iter) {
  state.SetBytesProcessed(static_cast<int64_t>(bytes_per_iter) * state.iterations());
}

// gelu written with basic ops, as in BENCHMARKS.md; 8 bytes of traffic per element.
void BM_Gelu(benchmark::State& state) {
  int64_t n = state.range(0);
  auto x = Tensor<1>::random({n}, Distribution::default_(), kCpu);
  sync(kCpu);
  for (auto _ : state) {
    auto y = x * ((x / std::sqrt(2.0)).erf() + 1.0) / 2.0;
    sync(kCpu);
    benchmark::DoNotOptimize(y);
  }
  set_bytes(state, 8.0 * static_cast<double>(n));
}
BENCHMARK(BM_Gelu)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

void BM_Softmax(benchmark::State& state) {
  int64_t rows = state.range(0), cols = state.range(1);
  auto x = Tensor<2>::random({rows, cols}, Distribution::default_(), kCpu);
  sync(kCpu);
  for (auto _ : state) {
    auto m = x.max_dim(1);
    auto e = (x - m).exp();
    auto y = e / e.sum_dim(1);
    sync(kCpu);
    benchmark::DoNotOptimize(y);
  }
  set_bytes(state, 8.0 * static_cast<double>(rows * cols));
}
BENCHMARK(BM_Softmax)->Args({1024, 1024})->Unit(benchmark::kMillisecond);

void BM_Matmul(benchmark::State& state) {
  int64_t n = state.range(0);
  auto a = Tensor<2>::random({n, n}, Distribution::default_(), kCpu);
  auto b = Tensor<2>::random({n, n}, Distribution::default_(), kCpu);
  sync(kCpu);
  for (auto _ : state) {
    auto c = a.matmul(b);
    sync(kCpu);
    benchmark::DoNotOptimize(c);
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                              benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Matmul)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);

// Per-op overhead: 100 x (x * 1.0001 + 0.0001) on 1024 elements, recorded and run each step.
void BM_Chain100(benchmark::State& state) {
  auto x0 = Tensor<1>::ones({1024}, kCpu);
  sync(kCpu);
  for (auto _ : state) {
    auto x = x0;
    for (int i = 0; i < 100; ++i) x = x * 1.0001 + 0.0001;
    sync(kCpu);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_Chain100)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ember
