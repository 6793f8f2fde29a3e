#pragma once
// What the benchmark suites share: the device, the size divisor and the timing loop.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <cstdint>
#include <functional>

namespace ember::bench {

// EMBER_DEVICE, else the best device.
Device bench_device();
// Sizes are divided by this: EMBER_BENCH_SHRINK, else 1 on GPUs and 64 elsewhere.
int64_t shrink();
// Runs `step` (which records work) and syncs, timing each iteration with device timestamps when
// the device has them (wall_time: always the whole step, host overhead included). Counters:
// kernels per iteration, peak memory, GB/s for `bytes`, TFLOP/s for `flops`.
void run_timed(benchmark::State& state, bool fused, const std::function<void()>& step, double bytes,
               double flops = 0, bool wall_time = false);

}  // namespace ember::bench
