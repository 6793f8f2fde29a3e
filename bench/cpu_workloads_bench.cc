// The CPU workloads of ../shared/BENCHMARKS.md at their own sizes (EMBER_BENCH_SHRINK does not
// apply): the Fashion-MNIST MLP's and the Burn guide CNN's training steps (batch 64), gelu,
// layer norm and softmax on 4M elements, a 1024 matmul, and a copy of 4M floats beside the
// machine's memcpy of the same bytes (the bandwidth ceiling of the memory-bound rows).
// bench/cpu_reference.py runs them against PyTorch's CPU eager and torch.compile.
#include <benchmark/benchmark.h>
#include <ember/ember.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/mlp3.h"
#include "jit/compile/compile.h"
#include "jit/exec/executor.h"
#include "nn/nn.h"
#include "optim/optim.h"

namespace ember {
namespace {

using bench::bench_device;
using bench::run_timed;

constexpr int64_t kBatch = 64;
constexpr int64_t k4M = int64_t{1} << 22;

// These workloads are the CPU's: elsewhere (the Vulkan smoke run on lavapipe) they skip.
bool skipped_off_cpu(benchmark::State& state) {
  if (bench_device().type() == DeviceType::Cpu) return false;
  state.SkipWithError("a CPU workload (EMBER_DEVICE=cpu or cpu-ref)");
  return true;
}

Tensor<2> uniform(int64_t r, int64_t c, uint32_t seed, double lo = -1, double hi = 1) {
  ember::seed(seed);
  auto t = Tensor<2>::random({r, c}, Distribution::uniform(lo, hi), bench_device());
  sync(bench_device());
  return t;
}

Tensor<1, Int> classes(uint32_t seed) {
  std::vector<int32_t> t(kBatch);
  for (int64_t i = 0; i < kBatch; ++i) t[i] = static_cast<int32_t>((i * 7 + seed) % 10);
  return Tensor<1, Int>::from_data(TensorData(t, Shape{kBatch}), bench_device());
}

// examples/fashion_mnist's model: 784 -> 256 -> 256 -> 10 with ReLUs.
bench::Mlp3 fashion_mlp(const Device& dev) {
  return {nn::LinearConfig(784, 256).init(dev), nn::LinearConfig(256, 256).init(dev),
          nn::LinearConfig(256, 10).init(dev)};
}

void BM_mlp_train_step_cpu(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  Device dev = bench_device();
  ember::seed(60);
  bench::Mlp3 model = fashion_mlp(dev);
  optim::Adam adam = optim::AdamConfig().init();
  auto x = uniform(kBatch, 784, 61, 0, 1);
  auto y = classes(62);
  auto loss_fn = nn::CrossEntropyLossConfig().init();
  Tensor<1> loss;
  run_timed(
      state, state.range(0),
      [&] {
        loss = loss_fn.forward(model.forward(x), y);
        model = adam.step(1e-3, model, optim::GradientsParams::from_grads(loss.backward(), model));
      },
      0, 6.0 * kBatch * (784 * 256 + 256 * 256 + 256 * 10), /*wall_time=*/true);
}

// The Burn guide's CNN (examples/guide/model.h) with its dropout 0.5.
struct GuideCnn {
  nn::Conv2d conv1, conv2;
  nn::AdaptiveAvgPool2d pool;
  nn::Dropout dropout;
  nn::Linear linear1, linear2;
  Tensor<2> forward(const Tensor<3>& images) const {
    auto x = images.unsqueeze_dim<4>(1);
    x = dropout.forward(conv1.forward(x));
    x = activation::relu(dropout.forward(conv2.forward(x)));
    auto h = pool.forward(x).reshape<2>(Shape{images.shape()[0], 16 * 8 * 8});
    h = activation::relu(dropout.forward(linear1.forward(h)));
    return linear2.forward(h);
  }
  EMBER_MODULE(GuideCnn, conv1, conv2, pool, dropout, linear1, linear2)
};

void BM_guide_cnn_step_cpu(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  Device dev = bench_device();
  ember::seed(63);
  GuideCnn model{
      nn::Conv2dConfig({1, 8}, {3, 3}).init(dev), nn::Conv2dConfig({8, 16}, {3, 3}).init(dev),
      nn::AdaptiveAvgPool2dConfig({8, 8}).init(), nn::DropoutConfig(0.5).init(),
      nn::LinearConfig(1024, 512).init(dev),      nn::LinearConfig(512, 10).init(dev)};
  optim::Adam adam = optim::AdamConfig().init();
  auto images = uniform(kBatch, 28 * 28, 64, 0, 1).reshape<3>(Shape{kBatch, 28, 28});
  auto y = classes(65);
  auto loss_fn = nn::CrossEntropyLossConfig().init();
  Tensor<1> loss;
  run_timed(
      state, state.range(0),
      [&] {
        loss = loss_fn.forward(model.forward(images), y);
        model = adam.step(1e-3, model, optim::GradientsParams::from_grads(loss.backward(), model));
      },
      0, 0, /*wall_time=*/true);
}

void BM_gelu_4M(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  auto x = uniform(1024, 4096, 66);
  Tensor<2> y;
  run_timed(
      state, state.range(0), [&] { y = activation::gelu(x); }, 8.0 * k4M, 0, /*wall_time=*/true);
}

void BM_layernorm_4M(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  auto x = uniform(1024, 4096, 67), w = uniform(1, 4096, 68), b = uniform(1, 4096, 69);
  Tensor<2> y;
  run_timed(
      state, state.range(0),
      [&] {
        auto centered = x - x.mean_dim(1);
        auto var = (centered * centered).mean_dim(1);
        y = centered / (var + 1e-5).sqrt() * w + b;
      },
      8.0 * k4M, 0, /*wall_time=*/true);
}

void BM_softmax_4M(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  auto x = uniform(1024, 4096, 70);
  Tensor<2> y;
  run_timed(
      state, state.range(0), [&] { y = activation::softmax(x, 1); }, 8.0 * k4M, 0,
      /*wall_time=*/true);
}

// A copy kernel: a view of a stored input returned as an output is copied by a flush.
void BM_copy_4M(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  auto x = uniform(1024, 4096, 71);
  Tensor<2> y;
  run_timed(
      state, state.range(0),
      [&] {
        y = x.reshape({4096, 1024}).reshape({2048, 2048});
      },
      8.0 * k4M, 0, /*wall_time=*/true);
}

// The machine's own copy of the same bytes (one thread, std::memcpy): the ceiling.
void BM_memcpy_4M(benchmark::State& state) {
  std::vector<float> a(k4M, 1.0f), b(k4M);
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), a.size() * sizeof(float));
    benchmark::DoNotOptimize(b.data());
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      8.0 * k4M * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_matmul_1024_f32(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  auto a = uniform(1024, 1024, 72), b = uniform(1024, 1024, 73);
  Tensor<2> c;
  run_timed(
      state, state.range(0), [&] { c = a.matmul(b); }, 0, 2.0 * 1024 * 1024 * 1024,
      /*wall_time=*/true);
}

// The first steps of examples/fashion_mnist's training from a fresh process state (plan and
// kernel caches of the process cleared, a new model and optimizer): `cold` with an empty kernel
// cache on disk, `warm` with the cache an earlier run left. Step 1 compiles (or loads from the
// disk cache) the step's kernels; step 2 does again where its graph differs (the first step
// reads parameters still pending from initialisation); step 3 is a steady step. The time
// reported is steps 1 and 2 together; each step's own time is a counter.
void BM_first_steps_cpu(benchmark::State& state) {
  if (skipped_off_cpu(state)) return;
  const bool warm = state.range(0) != 0;
  Device dev = bench_device();
  const std::string base = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/ember-bench-first-" + std::to_string(getpid());
  auto x = uniform(kBatch, 784, 74, 0, 1);
  auto y = classes(75);
  auto loss_fn = nn::CrossEntropyLossConfig().init();
  // Three steps of a new model; each step's wall time in ms.
  auto three_steps = [&] {
    jit::clear_plan_cache();
    jit::clear_memory_cache();
    ember::seed(76);
    bench::Mlp3 model = fashion_mlp(dev);
    optim::Adam adam = optim::AdamConfig().init();
    std::vector<double> ms;
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto loss = loss_fn.forward(model.forward(x), y);
      model = adam.step(1e-3, model, optim::GradientsParams::from_grads(loss.backward(), model));
      benchmark::DoNotOptimize(loss.into_scalar<float>());
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return ms;
  };
  int run = 0;
  if (warm) {
    setenv("EMBER_CACHE_DIR", (base + "-warm").c_str(), 1);
    three_steps();
  }
  std::vector<double> totals(3, 0.0);
  int64_t compiles = 0;
  for (auto _ : state) {
    setenv("EMBER_CACHE_DIR", (base + (warm ? "-warm" : "-cold-" + std::to_string(run++))).c_str(),
           1);
    reset_stats(dev);
    std::vector<double> ms = three_steps();
    compiles += stats(dev).compiles;
    for (int i = 0; i < 3; ++i) totals[i] += ms[i];
    state.SetIterationTime((ms[0] + ms[1]) / 1e3);
  }
  const double n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  for (int i = 0; i < 3; ++i)
    state.counters["step" + std::to_string(i + 1) + "_ms"] = totals[i] / n;
  state.counters["compiles"] = static_cast<double>(compiles) / n;
  state.SetLabel(dev.to_string() + (warm ? " warm (disk cache)" : " cold (empty cache)"));
  if (warm && compiles > 0) state.SkipWithError("warm start compiled kernels: disk cache missed");
  std::filesystem::remove_all(base + "-warm");
  for (int i = 0; i < run; ++i) std::filesystem::remove_all(base + "-cold-" + std::to_string(i));
  unsetenv("EMBER_CACHE_DIR");
}

#define EMBER_CPU_WORKLOAD(fn) \
  BENCHMARK(fn)->ArgName("fused")->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond)

EMBER_CPU_WORKLOAD(BM_mlp_train_step_cpu);
EMBER_CPU_WORKLOAD(BM_guide_cnn_step_cpu);
EMBER_CPU_WORKLOAD(BM_gelu_4M);
EMBER_CPU_WORKLOAD(BM_layernorm_4M);
EMBER_CPU_WORKLOAD(BM_softmax_4M);
EMBER_CPU_WORKLOAD(BM_copy_4M);
EMBER_CPU_WORKLOAD(BM_matmul_1024_f32);
BENCHMARK(BM_memcpy_4M)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_first_steps_cpu)
    ->ArgName("warm")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Repetitions(3)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ember
