#include "runtime/cpu/cpu_buffer.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::cpu {
namespace {

std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_allocations{0};

// Uploads from this size on map their pages in one call (see CpuBuffer).
constexpr size_t kPopulateFrom = size_t(4) << 20;

// Freed buffers of kKeepFrom bytes or more wait here for a request of the same rounded size, up
// to kKeepAtMost bytes in all. A training step allocates the same sizes step after step, and
// malloc hands big blocks back to the system (mmap, or a trimmed heap), so each step's buffers
// came back zero-filled one page fault at a time: conv2d_small took 2000 faults a step (320134
// in a 1.5 s run against 8460 with glibc's thresholds raised; session 29).
constexpr size_t kKeepFrom = size_t(64) << 10;
constexpr size_t kKeepAtMost = size_t(256) << 20;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

class KeptBlocks {
 public:
  static KeptBlocks& instance() {
    static KeptBlocks* blocks = new KeptBlocks;  // never destroyed: buffers may outlive statics
    return *blocks;
  }
  std::byte* take(size_t rounded) {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(rounded);
    if (it == blocks_.end()) return nullptr;
    std::byte* p = it->second;
    blocks_.erase(it);
    held_ -= rounded;
    return p;
  }
  // Whether the block is kept (else the caller frees it). Not under AddressSanitizer, whose
  // use-after-free checks need freed memory to go back to it. A block that would pass the limit
  // first gives back every kept one: sizes a program stopped asking for (an earlier phase, a
  // last smaller batch) do not hold memory for good.
  bool keep(std::byte* p, size_t rounded) noexcept {
    if (kSanitized || rounded < kKeepFrom || rounded > kKeepAtMost) return false;
    std::lock_guard lock(mutex_);
    if (held_ + rounded > kKeepAtMost) release_locked();
    try {
      blocks_.emplace(rounded, p);
    } catch (...) {  // no memory for the entry: the caller frees the block
      return false;
    }
    held_ += rounded;
    return true;
  }
  void release_all() {
    std::lock_guard lock(mutex_);
    release_locked();
  }
  size_t held() {
    std::lock_guard lock(mutex_);
    return held_;
  }

 private:
  void release_locked() {
    for (auto& [bytes, p] : blocks_) std::free(p);
    blocks_.clear();
    held_ = 0;
  }

  std::mutex mutex_;
  std::unordered_multimap<size_t, std::byte*> blocks_;
  size_t held_ = 0;
};

size_t rounded_size(size_t bytes) { return bytes == 0 ? 64 : (bytes + 63) / 64 * 64; }

std::byte* allocate_block(size_t rounded) {
  if (std::byte* kept = KeptBlocks::instance().take(rounded)) return kept;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
  if (p != nullptr) return p;
  KeptBlocks::instance().release_all();  // memory is short: give back what waits for reuse
  return static_cast<std::byte*>(std::aligned_alloc(64, rounded));
}

}  // namespace

size_t cpu_kept_bytes() { return KeptBlocks::instance().held(); }
void cpu_release_kept() { KeptBlocks::instance().release_all(); }

CpuBuffer::CpuBuffer(size_t bytes, bool filled_at_once) : bytes_(bytes) {
  if (filled_at_once && bytes >= kPopulateFrom) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {  // memory is short: give back what waits for reuse, and try again
      KeptBlocks::instance().release_all();
      p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
               -1, 0);
    }
    mapped_ = p != MAP_FAILED;
    data_ = mapped_ ? static_cast<std::byte*>(p) : nullptr;
  } else {
    data_ = allocate_block(rounded_size(bytes));
  }
  if (data_ == nullptr)
    throw Error(absl::StrCat("cpu: out of memory allocating ", bytes, " bytes"));
  int64_t now = g_in_use.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  g_allocations.fetch_add(1);
}

CpuBuffer::~CpuBuffer() {
  if (mapped_) {
    munmap(data_, bytes_);
  } else if (!KeptBlocks::instance().keep(data_, rounded_size(bytes_))) {
    std::free(data_);
  }
  g_in_use.fetch_sub(static_cast<int64_t>(bytes_));
}

MemoryStats cpu_memory_stats() { return {g_in_use.load(), g_peak.load(), g_allocations.load()}; }
void cpu_reset_peak_memory() { g_peak.store(g_in_use.load()); }

Array allocate(const TensorType& type, bool filled_at_once) {
  size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
  return Array::contiguous(std::make_shared<CpuBuffer>(bytes, filled_at_once), type);
}

}  // namespace ember::runtime::cpu
