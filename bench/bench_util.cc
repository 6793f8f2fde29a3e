// What the benchmark suites share: the device, the size divisor and the timing loop.
#include "bench/bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace ember::bench {

Device bench_device() { return Device::default_device(); }

int64_t shrink() {
  if (const char* s = std::getenv("EMBER_BENCH_SHRINK")) return std::max(1L, std::atol(s));
  Device d = bench_device();
  bool gpu = d.type() == DeviceType::Cuda ||
             (d.type() == DeviceType::Vulkan && std::getenv("EMBER_BENCH_GPU") != nullptr);
  return gpu ? 1 : 64;
}

void run_timed(benchmark::State& state, bool fused, const std::function<void()>& step, double bytes,
               double flops, bool wall_time) {
  Device dev = bench_device();
  FusionGuard guard(fused);
  reset_stats(dev);  // the warm-up's own compiles are reported below
  // Warm-up: compiles and allocates. Twice: a training step's first run reads freshly created
  // parameters, its second the first's results, which is another plan.
  for (int i = 0; i < 2; ++i) {
    step();
    sync(dev);
  }
  take_device_time_ms(dev);
  // What the warm-up compiled (nothing when the kernel cache was warm): first-use cost.
  const Stats first = stats(dev);
  reset_stats(dev);
  // A wall-time workload also reports its device time (device_ms): the difference is what the
  // host adds (recording, planning, launching) that the device does not overlap. The timestamps
  // cost two driver calls per flush, next to steps of milliseconds.
  const bool timing = set_device_timing(dev, true);
  int64_t iterations = 0;
  double device_total_ms = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    step();
    sync(dev);
    double device_ms = take_device_time_ms(dev);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(device_ms >= 0 && !wall_time ? device_ms / 1e3 : wall);
    if (device_ms >= 0 && device_total_ms >= 0) {
      device_total_ms += device_ms;
    } else {
      device_total_ms = -1;  // a device without timers
    }
    ++iterations;
  }
  set_device_timing(dev, timing);
  if (wall_time && device_total_ms >= 0) {
    state.counters["device_ms"] = device_total_ms / std::max<int64_t>(1, iterations);
  }
  Stats s = stats(dev);
  state.counters["kernels"] =
      static_cast<double>(s.kernels_launched) / std::max<int64_t>(1, iterations);
  state.counters["peak_MiB"] = static_cast<double>(s.peak_bytes) / (1 << 20);
  if (s.mma_launches > 0) {
    state.counters["mma_kernels"] =
        static_cast<double>(s.mma_launches) / std::max<int64_t>(1, iterations);
  }
  if (s.graph_launches > 0) {
    state.counters["graphs"] =
        static_cast<double>(s.graph_launches) / std::max<int64_t>(1, iterations);
  }
  if (bytes > 0) {
    state.counters["GB"] =
        benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  }
  if (flops > 0) {
    state.counters["TFLOP"] =
        benchmark::Counter(flops / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  }
  // Compile time summed over the compiling threads (they run in parallel): not wall time.
  state.counters["warmup_compiles"] = static_cast<double>(first.compiles);
  state.counters["warmup_compile_thread_s"] = first.compile_ms / 1e3;
  state.SetLabel(dev.to_string() + (fused ? " fused" : " unfused"));
}

}  // namespace ember::bench
