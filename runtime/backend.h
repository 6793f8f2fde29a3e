#pragma once
// The interface every device backend implements. The frontend never calls it directly: the jit
// hands it the work of a flushed graph.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ember::runtime {

// Device memory. Subclasses free it in their destructor.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t bytes() const = 0;
};

// A materialized value: a buffer plus a strided layout over it (strides in elements, may be 0 for
// broadcast dims or negative for flipped ones).
struct Array {
  std::shared_ptr<Buffer> buffer;
  TensorType type;
  std::vector<int64_t> strides;
  int64_t offset = 0;

  bool is_contiguous() const;
  static Array contiguous(std::shared_ptr<Buffer> buffer, TensorType type);
  // The element range [first, last] of the buffer the view touches (non-empty views).
  std::pair<int64_t, int64_t> span() const;
};

// Writes a non-empty view's elements densely to `dst`, given host memory `span_start` holding the
// view's span (from element span().first on): how GPU backends finish a download.
void gather_span(const Array& a, const std::byte* span_start, void* dst);

enum class DeviceKind : uint8_t { Cpu, Vulkan, Cuda };

struct MemoryStats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes = 0;
  int64_t allocations = 0;
};

// A compiled kernel ready to launch (a Vulkan pipeline, a CUDA function).
class Kernel {
 public:
  virtual ~Kernel() = default;
};

// What the jit hands a backend to make a Kernel.
struct KernelBinary {
  std::string name;
  std::vector<uint32_t> spirv;  // Vulkan: SPIR-V words
  std::vector<char> cubin;      // CUDA: a CUBIN (or PTX text) for the device's architecture
  std::string entry;            // CUDA: the kernel function's name
  std::string source;           // CUDA: the source, to fall back to PTX if the CUBIN won't load
  int num_buffers = 0;          // tensor bindings, after the parameter buffer
  uint32_t workgroup_size = 0;  // threads per workgroup (a specialization constant on Vulkan)
  int push_constant_words = 0;  // > 0: parameters as push constants, else a buffer at binding 0
  uint32_t dynamic_shared_bytes = 0;  // CUDA: shared memory sized at launch (may exceed 48 KiB)
  bool whole_grid = false;     // CUDA: synchronises its whole grid, so runs alone (KernelDesc)
  void* host_entry = nullptr;  // CPU: the compiled function (jit/compile/cpu_compile.h)
};

// A matrix inside a bound buffer that the kernel reads box by box through the device's copy
// engine (CUDA: a tensor map, passed by value after the buffers): `rows` rows of `cols`
// contiguous elements, `row_stride` elements apart, from element `offset` of the buffer of
// binding `binding`; boxes of box_rows x box_cols elements land in shared memory with the
// 128-byte swizzle (box_cols * element_bytes must be 128 at most).
struct TiledView {
  int binding = 0;
  uint32_t element_bytes = 2;
  uint64_t offset = 0, rows = 0, cols = 0, row_stride = 0;
  uint32_t box_rows = 0, box_cols = 0;
  bool operator==(const TiledView&) const = default;
};

// One launch: tensor bindings in the kernel's order (views bind their whole buffer; offsets and
// strides travel in `params`), which of them the kernel writes, and the grid.
struct Launch {
  std::vector<Array> buffers;
  std::vector<bool> writes;
  std::vector<uint32_t> params;
  uint32_t groups[3] = {1, 1, 1};
  std::vector<TiledView> tiled_views;  // CUDA kernels with bulk tensor copies only
  // Elements of the kernel's index space: the CPU splits work over threads only when it pays.
  uint64_t elements = 0;
};

// Work between the kernels of a flush that another library enqueues (a collective through
// NCCL, runtime/collectives.h): the backend gives it a stream, and may capture it into a graph.
class ExternalWork {
 public:
  virtual ~ExternalWork() = default;
  // Enqueues the work on `stream` (the backend's native stream; null: the device's own).
  // `captured`: into a graph being captured, which runs later (nothing may wait on it now).
  virtual void enqueue(void* stream, bool captured) const = 0;
  // After a graph holding this work, captured, was launched on the device's own stream.
  virtual void launched() const = 0;
  // What the work is besides its buffers: equal keys over equal buffers enqueue equal work.
  virtual uint64_t key() const = 0;
  // What must live as long as a graph holding the work, captured (a collective's communicator:
  // NCCL's captured work refers to it); not its buffers.
  virtual std::shared_ptr<const void> owner() const { return nullptr; }
};

// One launch of a sequence handed over as a whole (Backend::launch_sequence): a kernel, or
// external work (kernel null) reading and writing launch.buffers.
struct SequencedLaunch {
  const Kernel* kernel = nullptr;
  Launch launch;
  std::shared_ptr<const ExternalWork> external;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceKind kind() const = 0;
  virtual std::string name() const = 0;
  // Vendor, device and driver: what an autotuned winner is valid for.
  virtual std::string fingerprint() const { return name(); }
  // Whether the device is the host CPU (the CPU backend, or a CPU Vulkan driver such as
  // lavapipe): not worth tuning for, and suited to other launch shapes.
  virtual bool runs_on_cpu() const { return kind() == DeviceKind::Cpu; }
  // Whether flushes are planned, fused and compiled into kernels (Vulkan, CUDA, the CPU target)
  // rather than run a primitive at a time (the CPU reference executor).
  virtual bool compiles_kernels() const { return kind() != DeviceKind::Cpu; }
  // What compiled kernels target (e.g. "sm_90a"); empty where it does not matter.
  virtual std::string target() const { return ""; }
  // Copies `type.shape.numel()` densely packed elements into a new contiguous array.
  virtual Array upload(const TensorType& type, const void* data) = 0;
  // Writes the array's elements densely packed, row-major, to `dst`.
  virtual void download(const Array& a, void* dst) = 0;
  // Where the array's element 0 lies in this process's memory, for backends whose buffers are
  // host memory (the CPU); nullptr elsewhere.
  virtual const std::byte* host_address(const Array& a) const { return nullptr; }
  // Executes one primitive (the unfused reference path). Throws ember::Error on bad data, e.g.
  // an index out of range.
  virtual Array run_primitive(const ir::Node& node, std::span<const Array> inputs) = 0;
  virtual void sync() = 0;
  // New uninitialised contiguous array (GPU backends; the CPU backend allocates in its kernels).
  virtual Array allocate(const TensorType& type);
  virtual std::shared_ptr<Kernel> load_kernel(const KernelBinary& binary);
  // Enqueues a launch; it runs before any later launch that reads what it writes.
  virtual void launch(const Kernel& kernel, const Launch& launch);
  // Enqueues launches that run in order, as one unit. `key` names the sequence's structure: a
  // later sequence with the same key is the same work with maybe other buffers, scalars or
  // grids, so a backend may keep it and replay it whole (CUDA: an instantiated graph whose
  // changed nodes are patched). Returns whether it was submitted as one replay; the default
  // launches each in turn.
  virtual bool launch_sequence(uint64_t key, std::span<const SequencedLaunch> launches);
  virtual MemoryStats memory_stats() const = 0;
  virtual void reset_peak_memory() = 0;
  // Device time (from device timestamps) of the work submitted since the last call, in
  // nanoseconds; -1 where the backend has no timestamps.
  virtual double take_device_time_ns() { return -1; }
  // Whether work is bracketed by device timestamps for take_device_time_ns (on by default);
  // returns the previous setting. Backends whose timestamps cost the host nothing keep them.
  virtual bool set_timing(bool on) { return true; }
  // Whether launches run in submission order on one queue, so buffers may be released and
  // reused while work is pending (CUDA's stream); otherwise each flush ends with sync().
  virtual bool ordered_stream() const { return false; }
  // Largest grid (workgroups along x) one launch may use.
  virtual uint32_t max_workgroups() const { return 65535; }
  // Workgroups that run at once when each takes a whole compute unit (CUDA: the SMs), and the
  // most shared memory one workgroup may take (CUDA's opt-in limit): what a persistent kernel
  // that synchronises its whole grid may use (kernels/rnn). 0 where unknown.
  virtual uint32_t compute_units() const { return 0; }
  virtual uint32_t max_shared_bytes() const { return 0; }
  // Most tensor bindings one kernel may have (Vulkan: the device's storage buffers per stage,
  // 32 on lavapipe): fusion stops adding values to a kernel before it needs more.
  virtual int max_bindings() const { return 1 << 20; }
};

// The CPU reference backend (a primitive at a time): always available, the tests' oracle.
Backend& cpu_backend();
// The CPU target: fused plans compiled to C++ by the system compiler and run on a thread pool;
// the reference backend where no compiler works (runtime/cpu/jit_backend.cc says so once).
Backend& cpu_jit_backend();

}  // namespace ember::runtime
