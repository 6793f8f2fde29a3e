#pragma once
// Host memory for the CPU backend, 64-byte aligned, counted in the backend's memory stats.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/backend.h"

namespace ember::runtime::cpu {

class CpuBuffer final : public Buffer {
 public:
  // `filled_at_once`: the caller writes every byte right away (an upload): a big buffer then
  // gets its pages mapped in one call instead of one fault per page as the copy touches them
  // (a loaded 1 GiB checkpoint: 262144 faults). Other buffers come from malloc, and big ones
  // freed wait for a request of their size (cpu_buffer.cc: KeptBlocks), so that a training
  // step's buffers reuse the last step's pages instead of faulting in new ones.
  explicit CpuBuffer(size_t bytes, bool filled_at_once = false);
  ~CpuBuffer() override;
  size_t bytes() const override { return bytes_; }
  std::byte* data() { return data_; }

 private:
  size_t bytes_;
  std::byte* data_;
  bool mapped_ = false;
};

MemoryStats cpu_memory_stats();
// Bytes of freed buffers waiting for reuse (not in cpu_memory_stats' in-use figure), and their
// release to the system.
size_t cpu_kept_bytes();
void cpu_release_kept();
void cpu_reset_peak_memory();

// A new contiguous array of `type` (uninitialised; see CpuBuffer for `filled_at_once`).
Array allocate(const TensorType& type, bool filled_at_once = false);

// Typed pointer to element 0 of the array's view (the offset applied).
template <class T>
T* base_ptr(const Array& a) {
  return reinterpret_cast<T*>(static_cast<CpuBuffer*>(a.buffer.get())->data()) + a.offset;
}

// Untyped pointer to element 0 of the array's view.
inline std::byte* raw_ptr(const Array& a) {
  return static_cast<CpuBuffer*>(a.buffer.get())->data() +
         a.offset * static_cast<int64_t>(dtype_size(a.type.dtype));
}

}  // namespace ember::runtime::cpu
