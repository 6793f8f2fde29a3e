#include "frontend/stats.h"

#include "absl/strings/str_format.h"
#include "frontend/detail/stream.h"
#include "jit/stats.h"

namespace ember {

Stats stats(const Device& device) {
  const auto& c = jit::counters();
  Stats s;
  s.ops_recorded = c.ops_recorded.load() + detail::Stream::of(device).unflushed_ops();
  s.flushes = c.flushes.load();
  s.kernels_launched = c.kernels_launched.load();
  s.ops_fused = c.ops_fused.load();
  s.compiles = c.compiles.load();
  s.compile_ms = static_cast<double>(c.compile_us.load()) / 1000.0;
  s.cache_hits = c.cache_hits.load();
  s.lowerings_reused = c.lowerings_reused.load();
  s.mma_launches = c.mma_launches.load();
  s.graph_launches = c.graph_launches.load();
  s.replays = c.replays.load();
  s.collectives = c.collectives.load();
  s.graph_collectives = c.graph_collectives.load();
  runtime::MemoryStats m = detail::backend_for(device).memory_stats();
  s.bytes_in_use = m.bytes_in_use;
  s.peak_bytes = m.peak_bytes;
  s.allocations = m.allocations;
  return s;
}

double take_device_time_ms(const Device& device) {
  double ns = detail::backend_for(device).take_device_time_ns();
  return ns < 0 ? -1 : ns / 1e6;
}

bool set_device_timing(const Device& device, bool on) {
  return detail::backend_for(device).set_timing(on);
}

void reset_stats(const Device& device) {
  auto& c = jit::counters();
  for (auto* counter : {&c.ops_recorded, &c.flushes, &c.kernels_launched, &c.ops_fused, &c.compiles,
                        &c.compile_us, &c.cache_hits, &c.lowerings_reused, &c.mma_launches,
                        &c.graph_launches, &c.replays, &c.collectives, &c.graph_collectives}) {
    counter->store(0);
  }
  detail::Stream::of(device).reset_unflushed_ops();
  detail::backend_for(device).reset_peak_memory();
}

std::string Stats::to_string() const {
  return absl::StrFormat(
      "ops recorded %d, flushes %d, kernels launched %d, ops fused %d, compiles %d (%.1f ms), "
      "cache hits %d, lowerings reused %d, tensor-core launches %d, graph launches %d, replays "
      "%d, collectives %d (in graphs %d), memory in use %d B, peak %d B, allocations %d",
      ops_recorded, flushes, kernels_launched, ops_fused, compiles, compile_ms, cache_hits,
      lowerings_reused, mma_launches, graph_launches, replays, collectives, graph_collectives,
      bytes_in_use, peak_bytes, allocations);
}

}  // namespace ember
