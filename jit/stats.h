#pragma once
// Process-wide counters behind ember::stats(). Relaxed atomics: they are diagnostics, read
// between steps, never used to synchronise.
#include <atomic>
#include <cstdint>

namespace ember::jit {

struct Counters {
  std::atomic<int64_t> ops_recorded{0};
  std::atomic<int64_t> flushes{0};
  std::atomic<int64_t> kernels_launched{0};
  std::atomic<int64_t> ops_fused{0};
  std::atomic<int64_t> compiles{0};
  std::atomic<int64_t> compile_us{0};
  std::atomic<int64_t> cache_hits{0};
  std::atomic<int64_t> lowerings_reused{0};
  std::atomic<int64_t> mma_launches{0};
  std::atomic<int64_t> graph_launches{0};
  std::atomic<int64_t> replays{0};
  std::atomic<int64_t> collectives{0};
  std::atomic<int64_t> graph_collectives{0};
};

Counters& counters();

}  // namespace ember::jit
