#include "runtime/cpu/cpu_buffer.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::cpu {
namespace {

std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_allocations{0};

// Uploads from this size on map their pages in one call (see CpuBuffer).
constexpr size_t kPopulateFrom = size_t(4) << 20;

}  // namespace

CpuBuffer::CpuBuffer(size_t bytes, bool filled_at_once) : bytes_(bytes) {
  if (filled_at_once && bytes >= kPopulateFrom) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    mapped_ = p != MAP_FAILED;
    data_ = mapped_ ? static_cast<std::byte*>(p) : nullptr;
  } else {
    const size_t rounded = (bytes + 63) / 64 * 64;
    data_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
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
  } else {
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
