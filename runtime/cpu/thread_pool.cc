#include "runtime/cpu/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"

namespace ember::runtime::cpu {
namespace {

int configured_threads() {
  int n = 0;
  if (const char* env = std::getenv("EMBER_NUM_THREADS");
      env != nullptr && absl::SimpleAtoi(env, &n) && n > 0) {
    return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
  if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
  return n > 0 ? n : 1;
}

// Workers wait on a condition variable between jobs (a training step's kernels come every few
// microseconds, so they first spin briefly before sleeping).
class Pool {
 public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Returns false (and runs nothing) when another caller holds the pool.
  bool try_run(int chunks, const std::function<void(int)>& f) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard lock(mutex_);
      job_ = &f;
      chunks_ = chunks;
      next_.store(0, std::memory_order_relaxed);
      done_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take_chunks(f);
    // The caller's chunks are done; wait for the workers' (briefly spinning: they are short).
    for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
      if (spins > 2000) std::this_thread::yield();
    }
    // A worker that woke late may still be inside take_chunks (finding nothing left): the job
    // ends only once none is, so it never runs a later job's chunks with this function.
    for (;;) {
      std::lock_guard lock(mutex_);
      if (active_ == 0) {
        job_ = nullptr;
        if (error_) std::rethrow_exception(error_);
        return true;
      }
    }
  }

 private:
  void take_chunks(const std::function<void(int)>& f) {
    for (int c; (c = next_.fetch_add(1, std::memory_order_relaxed)) < chunks_;) {
      try {
        f(c);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      done_.fetch_add(1, std::memory_order_release);
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && job_ != nullptr); });
        if (stop_) return;
        seen = generation_;
        job = job_;
        ++active_;
      }
      take_chunks(*job);
      std::lock_guard lock(mutex_);
      --active_;
    }
  }

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller whose job runs
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(int)>* job_ = nullptr;
  int chunks_ = 0;
  int active_ = 0;  // workers inside take_chunks
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::atomic<int> next_{0}, done_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static auto* p = new Pool(configured_threads());  // lives as long as the process
  return *p;
}

}  // namespace

int num_threads() { return pool().size(); }

void run_chunks(int chunks, const std::function<void(int)>& f) {
  if (chunks <= 1 || num_threads() == 1 || !pool().try_run(chunks, f)) {
    for (int c = 0; c < chunks; ++c) f(c);
  }
}

}  // namespace ember::runtime::cpu
