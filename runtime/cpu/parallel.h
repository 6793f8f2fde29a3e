#pragma once
// Splits [0, count) over the machine's cores for the reference kernels that are heavy enough to
// pay for threads (convolutions): each worker takes a contiguous range.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace ember::runtime::cpu {

template <class F>
void parallel_for(int64_t count, F&& f) {
  const int64_t workers =
      std::min<int64_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(workers);
  for (int64_t t = 0; t < workers; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int64_t i = count * t / workers; i < count * (t + 1) / workers; ++i) f(i);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace ember::runtime::cpu
