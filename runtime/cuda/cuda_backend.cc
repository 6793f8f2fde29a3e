// The CUDA backend: a caching allocator, one stream, NVRTC-compiled modules, event timing.
#include "runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/cuda/cuda_api.h"
#include "runtime/cuda/cuda_graphs.h"
#include "runtime/cuda/cuda_native.h"

namespace ember::runtime {
namespace cuda {
namespace {

class CudaBackend;

// The context current on this thread as far as Ember set it (contexts are current per thread):
// bind() skips the driver call when it is already the one wanted.
thread_local CUcontext t_bound_context = nullptr;

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(CudaBackend* owner, CUdeviceptr ptr, size_t capacity, size_t bytes)
      : owner_(owner), ptr_(ptr), capacity_(capacity), bytes_(bytes) {}
  ~CudaBuffer() override;
  size_t bytes() const override { return bytes_; }
  CUdeviceptr ptr() const { return ptr_; }
  size_t capacity() const { return capacity_; }

 private:
  CudaBackend* owner_;
  CUdeviceptr ptr_;
  size_t capacity_, bytes_;
};

class CudaKernel final : public Kernel {
 public:
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  int param_words = 1;
  uint32_t block = 256;
  uint32_t shared = 0;  // dynamic shared memory bytes per launch
  bool whole_grid = false;
  std::string name;  // for EMBER_LOG=graphs
};

// Sizes are rounded to classes so freed blocks serve later requests of similar size: steady
// state training steps then allocate nothing from the driver.
const Driver* require_driver() {
  std::string why;
  const Driver* d = driver(&why);
  if (d == nullptr) throw Error("cuda: unavailable: " + why);
  return d;
}

size_t size_class(size_t bytes) {
  if (bytes <= 512) return 512;
  if (bytes <= (1u << 20)) return (bytes + 4095) / 4096 * 4096;
  return (bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20);
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int index) : index_(index), d_(require_driver()) {
    int count = 0;
    check(d_->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (index < 0 || index >= count) {
      throw Error(
          absl::StrCat("cuda: device index ", index, " out of range (", count, " device(s))"));
    }
    check(d_->cuDeviceGet(&device_, index), "cuDeviceGet");
    char name[256] = {0};
    d_->cuDeviceGetName(name, sizeof(name), device_);
    name_ = name;
    int major = 0, minor = 0;
    d_->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_);
    d_->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_);
    // Hopper's arch-specific features (wgmma, setmaxnreg) need the "a" target.
    arch_ = absl::StrCat("sm_", major, minor, major == 9 ? "a" : "");
    int sms = 0, shared = 0;
    d_->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_);
    d_->cuDeviceGetAttribute(&shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                             device_);
    compute_units_ = static_cast<uint32_t>(std::max(sms, 0));
    max_shared_bytes_ = static_cast<uint32_t>(std::max(shared, 0));
    check(d_->cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    bind();
    check(d_->cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
    check(d_->cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(d_->cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  std::string name() const override {
    return absl::StrCat("cuda:", index_, " (", name_, ", ", arch_, ")");
  }
  std::string target() const override { return arch_; }

  Array allocate(const TensorType& type) override {
    size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
    return Array::contiguous(alloc(bytes), type);
  }

  Array upload(const TensorType& type, const void* data) override {
    Array a = allocate(type);
    size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
    if (bytes > 0) {
      bind();
      check(d_->cuMemcpyHtoD(ptr(a), data, bytes), "cuMemcpyHtoD");
    }
    return a;
  }

  void download(const Array& a, void* dst) override {
    sync();
    if (a.type.shape.numel() == 0) return;
    auto [lo, hi] = a.span();
    size_t elem = dtype_size(a.type.dtype);
    std::vector<std::byte> host(static_cast<size_t>(hi - lo + 1) * elem);
    auto* buf = static_cast<CudaBuffer*>(a.buffer.get());
    check(d_->cuMemcpyDtoH(host.data(), buf->ptr() + lo * elem, host.size()), "cuMemcpyDtoH");
    gather_span(a, host.data(), dst);
  }

  Array run_primitive(const ir::Node& node, std::span<const Array>) override {
    throw Error(
        absl::StrCat("cuda: primitive ", ir::op_name(node.op), " must be compiled by the jit"));
  }

  std::shared_ptr<Kernel> load_kernel(const KernelBinary& bin) override {
    bind();
    auto k = std::make_shared<CudaKernel>();
    CUresult r = d_->cuModuleLoadData(&k->module, bin.cubin.data());
    if (r != CUDA_SUCCESS && !bin.source.empty()) {
      // A CUBIN the driver cannot load (an older driver than NVRTC): JIT from PTX instead.
      std::vector<char> ptx = nvrtc_compile(bin.source, bin.name, arch_, /*ptx=*/true);
      ptx.push_back('\0');
      r = d_->cuModuleLoadData(&k->module, ptx.data());
    }
    check(r, ("cuModuleLoadData " + bin.name).c_str());
    check(d_->cuModuleGetFunction(&k->function, k->module, bin.entry.c_str()),
          "cuModuleGetFunction");
    k->param_words = std::max(1, bin.push_constant_words);
    k->block = bin.workgroup_size;
    k->shared = bin.dynamic_shared_bytes;
    k->whole_grid = bin.whole_grid;
    k->name = bin.name;
    if (k->shared > 48 * 1024) {  // more than the default needs the kernel's opt-in
      check(d_->cuFuncSetAttribute(k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(k->shared)),
            ("cuFuncSetAttribute " + bin.name).c_str());
    }
    return k;
  }

  void launch(const Kernel& kernel, const Launch& l) override {
    KernelCall call = call_of(static_cast<const CudaKernel&>(kernel), l);
    bind();
    std::lock_guard lock(mutex_);
    start_timing();
    launch_call(*d_, call, stream_);
  }

  // Sequences of two or more launches replay as CUDA graphs (EMBER_CUDA_GRAPHS=0: never).
  bool launch_sequence(uint64_t key, std::span<const SequencedLaunch> launches) override {
    if (launches.size() < 2 || !graphs_wanted()) return Backend::launch_sequence(key, launches);
    const bool external =
        std::any_of(launches.begin(), launches.end(),
                    [](const SequencedLaunch& s) { return s.external != nullptr; });
    if (external && !d_->has_capture) return Backend::launch_sequence(key, launches);
    const auto t_calls = std::chrono::steady_clock::now();
    std::vector<KernelCall> calls;
    calls.reserve(launches.size());
    for (const SequencedLaunch& s : launches) {
      calls.push_back(s.external ? external_call(s)
                                 : call_of(static_cast<const CudaKernel&>(*s.kernel), s.launch));
    }
    // The first kernels go to the stream one by one ahead of the graph of the rest: the device
    // runs them while the driver takes the graph (cuGraphLaunch costs tens of microseconds).
    const size_t ahead = external ? 0 : std::min(graph_lead(), calls.size() - 2);
    std::vector<KernelCall> lead(std::make_move_iterator(calls.begin()),
                                 std::make_move_iterator(calls.begin() + ahead));
    calls.erase(calls.begin(), calls.begin() + ahead);
    bind();
    std::lock_guard lock(mutex_);
    start_timing();
    for (const KernelCall& c : lead) launch_call(*d_, c, stream_);
    bool launched = false;
    try {
      const auto t_graph = std::chrono::steady_clock::now();
      graphs_.launch(key, calls, stream_);
      launched = true;
      if (log_flush()) {
        std::fprintf(stderr,
                     "ember cuda: %zu calls made (%zu launched ahead) in %.3f ms, graph launched "
                     "in %.3f ms\n",
                     launches.size(), ahead, ms_between(t_calls, t_graph),
                     ms_between(t_graph, std::chrono::steady_clock::now()));
      }
    } catch (const Error& e) {
      // A driver that cannot build or launch graphs still runs the kernels one by one (nothing
      // of the graph ran).
      std::fprintf(stderr, "ember: cuda: graphs disabled: %s\n", e.what());
      graphs_failed_ = true;
    }
    if (launched) {
      // Outside the fallback: the graph's collectives ran; they must not be issued again.
      for (const SequencedLaunch& s : launches) {
        if (s.external) s.external->launched();
      }
      return true;
    }
    for (const KernelCall& c : calls) launch_call(*d_, c, stream_);
    return false;
  }

  void sync() override {
    bind();
    std::lock_guard lock(mutex_);
    if (timing_) {
      // Every launch is on stream_, before the stop event: once it completes, so has the
      // stream (no second wait).
      timing_ = false;
      if (d_->cuEventRecord(stop_, stream_) == CUDA_SUCCESS) {
        check(d_->cuEventSynchronize(stop_), "cuEventSynchronize");
        float ms = 0;
        if (d_->cuEventElapsedTime(&ms, start_, stop_) == CUDA_SUCCESS) device_ns_ += ms * 1e6;
        return;
      }
    }
    check(d_->cuStreamSynchronize(stream_), "cuStreamSynchronize");
  }

  // Two driver calls per flush (start and stop events, and the wait on the latter): a
  // latency-bound loop that never reads device time may turn them off.
  bool set_timing(bool on) override {
    std::lock_guard lock(mutex_);
    bool was = timing_enabled_;
    timing_enabled_ = on;
    return was;
  }

  double take_device_time_ns() override {
    std::lock_guard lock(mutex_);
    double t = device_ns_;
    device_ns_ = 0;
    return t;
  }
  uint32_t max_workgroups() const override { return 0x7fffffffu; }
  uint32_t compute_units() const override { return compute_units_; }
  uint32_t max_shared_bytes() const override { return max_shared_bytes_; }
  // Kernel parameters are limited to 4 KiB: pointers (8 bytes each) and tensor maps beside the
  // scalar words.
  int max_bindings() const override { return 256; }
  bool ordered_stream() const override { return true; }

  MemoryStats memory_stats() const override {
    std::lock_guard lock(pool_mutex_);
    return stats_;
  }
  void reset_peak_memory() override {
    std::lock_guard lock(pool_mutex_);
    stats_.peak_bytes = stats_.bytes_in_use;
  }

  NativeDevice native() const { return NativeDevice{context_, stream_, index_}; }

  void release(CUdeviceptr p, size_t capacity, size_t bytes) {
    std::lock_guard lock(pool_mutex_);
    free_[capacity].push_back(p);
    stats_.bytes_in_use -= static_cast<int64_t>(bytes);
  }

 private:
  void bind() {
    if (t_bound_context != context_) {
      check(d_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
      t_bound_context = context_;
    }
  }

  // EMBER_LOG=flush: how long a sequence's calls (tensor maps included) and its graph take.
  static bool log_flush() {
    static const bool on = [] {
      const char* env = std::getenv("EMBER_LOG");
      return env != nullptr && std::strstr(env, "flush") != nullptr;
    }();
    return on;
  }

  static double ms_between(std::chrono::steady_clock::time_point a,
                           std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  }

  CUdeviceptr ptr(const Array& a) { return static_cast<CudaBuffer*>(a.buffer.get())->ptr(); }
  uint64_t capacity(const Array& a) { return static_cast<CudaBuffer*>(a.buffer.get())->capacity(); }

  KernelCall call_of(const CudaKernel& k, const Launch& l) {
    KernelCall c;
    c.function = k.function;
    c.name = k.name.c_str();
    std::copy(std::begin(l.groups), std::end(l.groups), c.grid);
    c.block = k.block;
    c.shared = k.shared;
    c.whole_grid = k.whole_grid;
    c.params.assign(static_cast<size_t>(k.param_words), 0);
    std::copy(l.params.begin(), l.params.end(), c.params.begin());
    c.buffers.reserve(l.buffers.size());
    for (size_t i = 0; i < l.buffers.size(); ++i) {
      c.buffers.push_back(ptr(l.buffers[i]));
      c.capacities.push_back(capacity(l.buffers[i]));
      // A launch that does not say is taken to write the binding (it orders every conflict).
      c.writes.push_back(i >= l.writes.size() || l.writes[i] ? 1 : 0);
    }
    for (const TiledView& v : l.tiled_views) c.tensor_maps.push_back(tensor_map(v, c.buffers));
    return c;
  }

  // External work (a collective) in a sequence: its buffers, for the capture to order it.
  KernelCall external_call(const SequencedLaunch& s) {
    KernelCall c;
    c.is_external = true;
    c.external = s.external;
    c.external_key = s.external->key();
    for (const Array& a : s.launch.buffers) {
      c.buffers.push_back(ptr(a));
      c.capacities.push_back(capacity(a));
      c.writes.push_back(1);
    }
    return c;
  }

  // The tensor map of `v` over its binding's buffer: 128-byte swizzled boxes, zeros outside.
  TensorMapArg tensor_map(const TiledView& v, const std::vector<CUdeviceptr>& buffers) {
    if (d_->cuTensorMapEncodeTiled == nullptr)
      throw Error("cuda: the driver has no cuTensorMapEncodeTiled (a tiled kernel needs CUDA 12)");
    const CUtensorMapDataType type = v.element_bytes == 2   ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                     : v.element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                            : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    const cuuint64_t dims[2] = {v.cols, v.rows};
    const cuuint64_t strides[1] = {v.row_stride * v.element_bytes};
    const cuuint32_t box[2] = {v.box_cols, v.box_rows};
    const cuuint32_t steps[2] = {1, 1};
    TensorMapArg arg{};  // compared bytewise: no stray bytes
    void* base = reinterpret_cast<void*>(buffers.at(static_cast<size_t>(v.binding)) +
                                         v.offset * v.element_bytes);
    CUresult r = d_->cuTensorMapEncodeTiled(
        &arg.map, type, 2, base, dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      throw Error(absl::StrCat("cuda: cuTensorMapEncodeTiled refused a ", v.rows, " x ", v.cols,
                               " view (row stride ", v.row_stride, ", box ", v.box_rows, " x ",
                               v.box_cols, ", ", v.element_bytes, "-byte elements): CUresult ", r));
    }
    return arg;
  }

  // Device time runs from the first launch after a sync to the next sync.
  void start_timing() {
    if (!timing_ && timing_enabled_) {
      d_->cuEventRecord(start_, stream_);
      timing_ = true;
    }
  }

  // EMBER_CUDA_GRAPH_LEAD=N: how many of a sequence's first kernels are launched one by one
  // ahead of its graph (default 1).
  static size_t graph_lead() {
    static const size_t lead = [] {
      const char* env = std::getenv("EMBER_CUDA_GRAPH_LEAD");
      return env == nullptr ? size_t{1} : static_cast<size_t>(std::max(0L, std::atol(env)));
    }();
    return lead;
  }

  bool graphs_wanted() const {
    static const bool off = [] {
      const char* env = std::getenv("EMBER_CUDA_GRAPHS");
      return env != nullptr && std::string(env) == "0";
    }();
    return d_->has_graphs && !off && !graphs_failed_;
  }

  std::shared_ptr<CudaBuffer> alloc(size_t bytes) {
    size_t capacity = size_class(bytes);
    CUdeviceptr p = 0;
    {
      std::lock_guard lock(pool_mutex_);
      auto& list = free_[capacity];
      if (!list.empty()) {
        p = list.back();
        list.pop_back();
      }
      stats_.bytes_in_use += static_cast<int64_t>(bytes);
      stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes_in_use);
    }
    if (p == 0) {
      bind();
      CUresult r = d_->cuMemAlloc(&p, capacity);
      if (r != CUDA_SUCCESS) {
        // Give cached blocks back to the driver once, then retry.
        sync();
        trim();
        r = d_->cuMemAlloc(&p, capacity);
      }
      if (r != CUDA_SUCCESS) {
        std::lock_guard lock(pool_mutex_);
        stats_.bytes_in_use -= static_cast<int64_t>(bytes);
        check(r, absl::StrCat("cuMemAlloc of ", capacity, " bytes").c_str());
      }
      std::lock_guard lock(pool_mutex_);
      ++stats_.allocations;
    }
    return std::make_shared<CudaBuffer>(this, p, capacity, bytes);
  }

  void trim() {
    std::lock_guard lock(pool_mutex_);
    for (auto& [size, list] : free_) {
      for (CUdeviceptr p : list) d_->cuMemFree(p);
      list.clear();
    }
  }

  int index_;
  const Driver* d_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  bool timing_enabled_ = true;
  CUevent start_ = nullptr, stop_ = nullptr;
  bool timing_ = false;
  GraphCache graphs_{d_};  // guarded by mutex_
  bool graphs_failed_ = false;
  double device_ns_ = 0;
  std::string name_, arch_;
  uint32_t compute_units_ = 0, max_shared_bytes_ = 0;
  std::mutex mutex_;
  mutable std::mutex pool_mutex_;
  std::map<size_t, std::vector<CUdeviceptr>> free_;
  MemoryStats stats_;
};

CudaBuffer::~CudaBuffer() { owner_->release(ptr_, capacity_, bytes_); }

}  // namespace

NativeDevice native_device(Backend& backend) {
  auto* b = dynamic_cast<CudaBackend*>(&backend);
  if (b == nullptr) throw Error("cuda: " + backend.name() + " is not a CUDA device");
  return b->native();
}

CUdeviceptr device_pointer(const Array& a) {
  auto* buf = dynamic_cast<const CudaBuffer*>(a.buffer.get());
  if (buf == nullptr) throw Error("cuda: an array that is not in CUDA device memory");
  return buf->ptr() + static_cast<CUdeviceptr>(a.offset) * dtype_size(a.type.dtype);
}

void make_current(const NativeDevice& device) {
  if (t_bound_context == device.context) return;
  check(require_driver()->cuCtxSetCurrent(device.context), "cuCtxSetCurrent");
  t_bound_context = device.context;
}
}  // namespace cuda

int cuda_device_count(std::string* why) {
  const cuda::Driver* d = cuda::driver(why);
  if (d == nullptr) return 0;
  int count = 0;
  if (d->cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

Backend& cuda_backend(int index) {
  static std::mutex mutex;
  static std::map<int, cuda::CudaBackend*> backends;  // never destroyed: tensors may outlive main
  std::lock_guard lock(mutex);
  auto& b = backends[index];
  if (b == nullptr) b = new cuda::CudaBackend(index);
  return *b;
}

}  // namespace ember::runtime
