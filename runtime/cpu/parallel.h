#pragma once
// Splits [0, count) over the CPU's worker threads (runtime/cpu/thread_pool.h) for the reference
// kernels heavy enough to pay for threads (convolutions, random draws): each worker takes a
// contiguous range.
#include <algorithm>
#include <cstdint>

#include "runtime/cpu/thread_pool.h"

namespace ember::runtime::cpu {

template <class F>
void parallel_for(int64_t count, F&& f) {
  const int64_t workers = std::min<int64_t>(count, num_threads());
  if (workers <= 1) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  run_chunks(static_cast<int>(workers), [&](int t) {
    for (int64_t i = count * t / workers; i < count * (t + 1) / workers; ++i) f(i);
  });
}

}  // namespace ember::runtime::cpu
