// The CPU target: what the reference backend does for memory and single primitives (matmul and
// convolution run there, through Eigen's threaded products), plus compiled kernels: a plan's
// fused kernels as C++ functions (jit/compile/cpu_compile.h) run on the thread pool.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/host_compiler.h"
#include "runtime/cpu/thread_pool.h"

namespace ember::runtime {
namespace cpu {
namespace {

using KernelFn = void (*)(const uint32_t* P, void* const* B, uint32_t wg, uint32_t nwg);

// Below this many elements a kernel runs on the calling thread: waking the pool costs more.
constexpr uint64_t kMinParallelElements = 1 << 15;

class HostKernel final : public Kernel {
 public:
  explicit HostKernel(KernelFn fn) : fn_(fn) {}
  KernelFn fn() const { return fn_; }

 private:
  KernelFn fn_;
};

class CpuJitBackend final : public Backend {
 public:
  explicit CpuJitBackend(Backend& reference) : ref_(reference) {}

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string name() const override { return "cpu"; }
  std::string fingerprint() const override {
    const HostCompiler* c = host_compiler();
    return absl::StrCat("cpu/", c->machine, "/", c->version);
  }
  bool compiles_kernels() const override { return true; }

  Array allocate(const TensorType& type) override { return cpu::allocate(type); }
  Array upload(const TensorType& type, const void* data) override {
    return ref_.upload(type, data);
  }
  void download(const Array& a, void* dst) override { ref_.download(a, dst); }
  const std::byte* host_address(const Array& a) const override { return ref_.host_address(a); }
  Array run_primitive(const ir::Node& n, std::span<const Array> in) override {
    return ref_.run_primitive(n, in);
  }

  std::shared_ptr<Kernel> load_kernel(const KernelBinary& binary) override {
    if (binary.host_entry == nullptr) throw Error("cpu: kernel " + binary.name + " has no code");
    return std::make_shared<HostKernel>(reinterpret_cast<KernelFn>(binary.host_entry));
  }

  void launch(const Kernel& kernel, const Launch& l) override {
    KernelFn fn = static_cast<const HostKernel&>(kernel).fn();
    std::vector<void*> buffers;
    buffers.reserve(l.buffers.size());
    for (const Array& a : l.buffers)
      buffers.push_back(static_cast<CpuBuffer*>(a.buffer.get())->data());
    const uint32_t* params = l.params.data();
    // Workgroups are rows or elements; each call takes a contiguous share of them.
    const uint64_t work = l.groups[0];
    int chunks = 1;
    if (l.elements >= kMinParallelElements && work > 1) {
      chunks = static_cast<int>(std::min<uint64_t>(work, static_cast<uint64_t>(num_threads())));
    }
    if (chunks == 1) {
      fn(params, buffers.data(), 0, 1);
      return;
    }
    const auto n = static_cast<uint32_t>(chunks);
    run_chunks(chunks, [&](int c) { fn(params, buffers.data(), static_cast<uint32_t>(c), n); });
  }

  void sync() override {}
  MemoryStats memory_stats() const override { return ref_.memory_stats(); }
  void reset_peak_memory() override { ref_.reset_peak_memory(); }
  uint32_t max_workgroups() const override { return 1u << 31; }

 private:
  Backend& ref_;
};

}  // namespace
}  // namespace cpu

Backend& cpu_jit_backend() {
  static Backend* backend = [] {
    std::string why;
    if (cpu::host_compiler(&why) == nullptr) {
      std::fprintf(stderr, "ember: %s; the CPU device runs the reference executor\n", why.c_str());
      return &cpu_backend();
    }
    return static_cast<Backend*>(new cpu::CpuJitBackend(cpu_backend()));
  }();
  return *backend;
}

}  // namespace ember::runtime
