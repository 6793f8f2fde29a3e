#pragma once
// Counters for what the engine did: ops recorded, kernels launched, fusion, compiles, memory.
#include <cstdint>
#include <string>

#include "frontend/device.h"

namespace ember {

struct Stats {
  int64_t ops_recorded = 0;       // primitives recorded into lazy streams
  int64_t flushes = 0;            // sync points that ran pending work
  int64_t kernels_launched = 0;   // kernels (or reference primitives) executed
  int64_t ops_fused = 0;          // primitives folded into another op's kernel
  int64_t compiles = 0;           // kernels compiled
  double compile_ms = 0;          // time spent compiling
  int64_t cache_hits = 0;         // kernels or plans found in a cache
  int64_t lowerings_reused = 0;   // flushes that reused a cached plan's launch parameters
  int64_t mma_launches = 0;       // matmul kernels launched on tensor cores
  int64_t graph_launches = 0;     // flushes whose kernels replayed as one graph (CUDA graphs)
  int64_t replays = 0;            // flushes of the same graph as the stream's last one, replayed
                                  // without hashing, planning or lowering
  int64_t collectives = 0;        // collectives between ranks run inside flushes (dist::)
  int64_t graph_collectives = 0;  // of which captured in a replayed graph with the kernels
  int64_t bytes_in_use = 0;       // device memory held by live buffers
  int64_t peak_bytes = 0;         // the most held at once since the last reset
  int64_t allocations = 0;        // buffers allocated
  std::string to_string() const;
};

// Process-wide counters; memory figures are those of `device`.
Stats stats(const Device& device = Device::default_device());
// Device time (device timestamps) of the work that ran on `device` since the last call, in ms;
// -1 when the device has no timers (the CPU backend).
double take_device_time_ms(const Device& device);
// Whether `device` brackets its work with timestamps for take_device_time_ms (on by default);
// returns the previous setting. On CUDA they cost two driver calls per flush, which a
// latency-bound loop that never reads device time can save; work run while off is not timed.
bool set_device_timing(const Device& device, bool on);
// Zeroes the counters and restarts the memory peak from what is held now.
void reset_stats(const Device& device = Device::default_device());

}  // namespace ember
