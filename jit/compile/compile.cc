#include "jit/compile/compile.h"

#define XXH_INLINE_ALL
#include <sched.h>
#include <shaderc/shaderc.h>
#include <spirv-tools/libspirv.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/codegen/cuda_source.h"
#include "jit/codegen/glsl.h"
#include "jit/codegen/spirv_aliased.h"
#include "jit/compile/cpu_compile.h"
#include "jit/dump.h"
#include "jit/stats.h"
#include "runtime/cuda/nvrtc.h"

namespace ember::jit {
namespace {

namespace fs = std::filesystem;

// Bumped whenever rendering or compile options change, so stale binaries are never reused.
constexpr uint32_t kCacheFormat = 12;
constexpr uint32_t kMagic = 0x4b424d45;  // "EMBK"

std::string compiler_id() {
  unsigned version = 0, revision = 0;
  shaderc_get_spv_version(&version, &revision);
  return absl::StrCat("shaderc-spv", version, ".", revision, "-vk1.2-O");
}

std::string hex(uint64_t h) { return absl::StrCat(absl::Hex(h, absl::kZeroPad16)); }

// The identity an entry is stored under: a 128-bit digest of everything that made the binary
// (source, compiler, device, workgroup size). The file name holds 64 bits of another hash; the
// entry itself records this one, so an entry under the wrong name (files swapped, copied or
// colliding) is recognised instead of run.
XXH128_hash_t entry_key(const std::string& key_text) {
  return XXH3_128bits_withSeed(key_text.data(), key_text.size(), 0x656d626572ull);
}

// Entries found bad are reported once per process, then dropped and rebuilt silently.
void warn_bad_entry(const fs::path& path, const char* why) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr, "ember: kernel cache entry %s %s; it is rebuilt (further ones silently)\n",
                 path.c_str(), why);
  }
}

enum class EntryRead { Missing, Bad, Ok };

// On-disk entry: magic, format, byte count, xxh64 of the bytes, the 128-bit key, the binary.
EntryRead read_entry(const fs::path& path, const XXH128_hash_t& key, std::vector<char>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return EntryRead::Missing;
  uint32_t header[3];
  uint64_t checksum;
  XXH128_hash_t stored;
  if (!in.read(reinterpret_cast<char*>(header), sizeof(header)) ||
      !in.read(reinterpret_cast<char*>(&checksum), sizeof(checksum)) ||
      !in.read(reinterpret_cast<char*>(&stored), sizeof(stored))) {
    return EntryRead::Bad;
  }
  if (header[0] == kMagic && header[1] != kCacheFormat) return EntryRead::Missing;  // older
  if (header[0] != kMagic || header[2] == 0 || header[2] > (256u << 20)) return EntryRead::Bad;
  if (!XXH128_isEqual(stored, key)) return EntryRead::Bad;
  bytes.resize(header[2]);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return EntryRead::Bad;
  return XXH64(bytes.data(), bytes.size(), 0) == checksum ? EntryRead::Ok : EntryRead::Bad;
}

void write_entry(const fs::path& path, const XXH128_hash_t& key, const std::vector<char>& bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return;  // an unwritable cache only costs recompiles
  fs::path tmp = path;
  // Per process and thread: several threads compile at once (get_kernels).
  tmp +=
      absl::StrCat(".tmp", getpid(), "_", std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary);
    uint32_t header[3] = {kMagic, kCacheFormat, static_cast<uint32_t>(bytes.size())};
    uint64_t checksum = XXH64(bytes.data(), bytes.size(), 0);
    out.write(reinterpret_cast<const char*>(header), sizeof(header));
    out.write(reinterpret_cast<const char*>(&checksum), sizeof(checksum));
    out.write(reinterpret_cast<const char*>(&key), sizeof(key));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);  // atomic: readers see the old entry or the whole new one
  if (ec) fs::remove(tmp, ec);
}

struct MemoryCache {
  using Key = std::pair<const runtime::Backend*, uint64_t>;
  std::mutex mutex;
  std::map<Key, std::shared_ptr<runtime::Kernel>> kernels;
  // Kernels being compiled by some thread now: another thread asking for one waits for it
  // instead of compiling it again (get_kernels compiles a plan's kernels at once).
  std::map<Key, std::shared_future<std::shared_ptr<runtime::Kernel>>> compiling;
};

MemoryCache& memory_cache() {
  static auto* c = new MemoryCache;  // outlives static tensors
  return *c;
}

}  // namespace

void clear_memory_cache() {
  forget_cpu_libraries();
  auto& mc = memory_cache();
  std::lock_guard lock(mc.mutex);
  mc.kernels.clear();
}

std::string cache_dir() {
  if (const char* d = std::getenv("EMBER_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return absl::StrCat(x, "/ember");
  if (const char* h = std::getenv("HOME"); h && *h) return absl::StrCat(h, "/.cache/ember");
  return "/tmp/ember-cache";
}

namespace {

// One shaderc invocation: SPIR-V binary, or its disassembly for EMBER_DUMP=binary.
shaderc_compilation_result_t run_shaderc(const std::string& source, const std::string& name,
                                         bool assembly) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  static shaderc_compiler_t compiler = shaderc_compiler_initialize();
  shaderc_compile_options_t opts = shaderc_compile_options_initialize();
  shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
                                         shaderc_env_version_vulkan_1_2);
  shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_performance);
  auto compile = assembly ? shaderc_compile_into_spv_assembly : shaderc_compile_into_spv;
  shaderc_compilation_result_t r =
      compile(compiler, source.data(), source.size(), shaderc_compute_shader,
              (name + ".comp").c_str(), "main", opts);
  shaderc_compile_options_release(opts);
  return r;
}

std::string spirv_assembly(const std::string& source, const std::string& name) {
  shaderc_compilation_result_t r = run_shaderc(source, name, true);
  std::string text(shaderc_result_get_bytes(r), shaderc_result_get_length(r));
  shaderc_result_release(r);
  return text;
}

}  // namespace

std::vector<uint32_t> compile_glsl(const std::string& source, const std::string& name) {
  shaderc_compilation_result_t r = run_shaderc(source, name, false);
  if (shaderc_result_get_compilation_status(r) != shaderc_compilation_status_success) {
    std::string msg = shaderc_result_get_error_message(r);
    shaderc_result_release(r);
    throw Error(absl::StrCat("jit: GLSL compile of ", name, " failed:\n", msg, "\n", source));
  }
  const auto* bytes = reinterpret_cast<const uint32_t*>(shaderc_result_get_bytes(r));
  std::vector<uint32_t> words(bytes, bytes + shaderc_result_get_length(r) / 4);
  shaderc_result_release(r);
  if (source.find(kAliasedBuffersMarker) != std::string::npos) decorate_aliased_buffers(words);
  return words;
}

namespace {

// Whether a stored SPIR-V module is valid for Vulkan 1.2 (a driver may crash on one that is not).
bool valid_spirv(const std::vector<char>& binary) {
  if (binary.size() % 4 != 0 || binary.size() < 20) return false;
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_2);
  spv_const_binary_t words{reinterpret_cast<const uint32_t*>(binary.data()), binary.size() / 4};
  spv_diagnostic diagnostic = nullptr;
  spv_result_t r = spvValidate(context, &words, &diagnostic);
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return r == SPV_SUCCESS;
}

bool is_elf(const std::vector<char>& binary) {
  return binary.size() > 4 && binary[0] == 0x7f && binary[1] == 'E' && binary[2] == 'L' &&
         binary[3] == 'F';
}

runtime::KernelBinary kernel_binary(const KernelDesc& desc, const std::string& source,
                                    std::vector<char> binary, bool cuda) {
  runtime::KernelBinary bin;
  bin.name = desc.name;
  bin.num_buffers = static_cast<int>(desc.buffers.size()) + desc.uses_errors;
  bin.workgroup_size = desc.workgroup_size;
  bin.dynamic_shared_bytes = desc.dynamic_shared_bytes;
  bin.whole_grid = desc.whole_grid;
  if (cuda) {
    bin.cubin = std::move(binary);
    bin.entry = cuda_entry(desc);
    bin.source = source;
    bin.push_constant_words = std::max(1, desc.num_params);
  } else {
    bin.spirv.resize(binary.size() / 4);
    std::memcpy(bin.spirv.data(), binary.data(), binary.size());
    bin.push_constant_words = desc.push_params() ? std::max(1, desc.num_params) : 0;
  }
  return bin;
}

// EMBER_DUMP=binary: the SPIR-V disassembly, or the PTX of the CUDA source (compiled again for
// the virtual architecture: the cached binary is a CUBIN, which needs NVIDIA's disassembler).
void dump_binary(const std::string& name, const std::string& hash, const std::string& source,
                 const runtime::Backend& backend, bool cuda) {
  std::string file = absl::StrCat(name, "_", hash);
  if (!cuda) {
    dump("binary", file + ".spvasm", spirv_assembly(source, name));
    return;
  }
  std::vector<char> ptx = runtime::cuda::nvrtc_compile(source, name, backend.target(), true);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  dump("binary", file + ".ptx", std::string(ptx.begin(), ptx.end()));
}

}  // namespace

namespace {
std::shared_ptr<runtime::Kernel> compile_and_load(const KernelDesc& desc, runtime::Backend& backend,
                                                  const std::string& source,
                                                  const std::string& key_text, uint64_t h);
}  // namespace

std::shared_ptr<runtime::Kernel> get_kernel(const KernelDesc& desc, runtime::Backend& backend) {
  if (desc.host) return nullptr;  // the backend's own work (a collective): nothing to compile
  bool cuda = backend.kind() == runtime::DeviceKind::Cuda;
  std::string source = cuda ? render_cuda(desc) : render_glsl(desc);
  std::string compiler = cuda ? absl::StrCat("nvrtc-", runtime::cuda::nvrtc_version(), "-",
                                             backend.target(), "-approx-div-sqrt-nofmad")
                              : compiler_id();
  // The workgroup size is a specialization constant in GLSL, not part of the source; the
  // dynamic shared memory is set on the loaded kernel, and one source may need several sizes
  // (an LSTM's weight slice grows with its hidden size).
  std::string key_text = absl::StrCat(source, "\n//", compiler, "/", backend.name(), "/wg",
                                      desc.workgroup_size, "/smem", desc.dynamic_shared_bytes);
  uint64_t h = XXH3_64bits(key_text.data(), key_text.size());
  auto& mc = memory_cache();
  const MemoryCache::Key mkey{&backend, h};
  std::promise<std::shared_ptr<runtime::Kernel>> promise;
  {
    std::unique_lock lock(mc.mutex);
    if (auto it = mc.kernels.find(mkey); it != mc.kernels.end()) {
      counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
      return it->second;
    }
    if (auto it = mc.compiling.find(mkey); it != mc.compiling.end()) {
      auto pending = it->second;
      lock.unlock();
      counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
      return pending.get();  // the compiling thread's kernel, or its error
    }
    mc.compiling.emplace(mkey, promise.get_future().share());
  }
  try {
    std::shared_ptr<runtime::Kernel> kernel = compile_and_load(desc, backend, source, key_text, h);
    {
      std::lock_guard lock(mc.mutex);
      mc.kernels[mkey] = kernel;
      mc.compiling.erase(mkey);
    }
    promise.set_value(kernel);
    return kernel;
  } catch (...) {
    {
      std::lock_guard lock(mc.mutex);
      mc.compiling.erase(mkey);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

namespace {

// get_kernel's work past the memory cache: the disk cache, else the compiler, then the backend.
std::shared_ptr<runtime::Kernel> compile_and_load(const KernelDesc& desc, runtime::Backend& backend,
                                                  const std::string& source,
                                                  const std::string& key_text, uint64_t h) {
  const bool cuda = backend.kind() == runtime::DeviceKind::Cuda;
  std::string file = absl::StrCat(desc.name, "_", hex(h));
  if (dump_enabled("kernels")) dump("kernels", file + (cuda ? ".cu" : ".comp"), source);
  fs::path entry = fs::path(cache_dir()) / (cuda ? "cubin" : "spirv") / (hex(h) + ".bin");
  const XXH128_hash_t key = entry_key(key_text);
  auto compile_and_store = [&] {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<char> binary;
    if (cuda) {
      binary = runtime::cuda::nvrtc_compile(source, desc.name, backend.target(), false);
    } else {
      auto words = compile_glsl(source, desc.name);
      binary.assign(reinterpret_cast<const char*>(words.data()),
                    reinterpret_cast<const char*>(words.data() + words.size()));
    }
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    counters().compiles.fetch_add(1, std::memory_order_relaxed);
    counters().compile_us.fetch_add(us, std::memory_order_relaxed);
    static const bool log = log_enabled("compiles");
    if (log) {
      std::fprintf(stderr, "ember: compile %s: %.1f ms, %zu bytes of source, %zu of binary\n",
                   file.c_str(), static_cast<double>(us) / 1e3, source.size(), binary.size());
    }
    write_entry(entry, key, binary);
    return binary;
  };
  std::vector<char> binary;
  bool from_disk = false;
  switch (read_entry(entry, key, binary)) {
    case EntryRead::Ok:
      // (A CUBIN the driver then rejects still loads through PTX: an older driver than NVRTC.)
      from_disk = cuda ? is_elf(binary) : valid_spirv(binary);
      if (!from_disk) warn_bad_entry(entry, cuda ? "is not a CUBIN" : "is not valid SPIR-V");
      break;
    case EntryRead::Bad:
      warn_bad_entry(entry, "is damaged or belongs to another kernel");
      break;
    case EntryRead::Missing:
      break;
  }
  if (from_disk) {
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    binary = compile_and_store();
  }
  std::shared_ptr<runtime::Kernel> kernel;
  try {
    kernel = backend.load_kernel(kernel_binary(desc, source, std::move(binary), cuda));
  } catch (const std::exception& e) {
    if (!from_disk) throw;
    // A stored binary the driver rejects (a damaged entry, another driver's) is replaced.
    warn_bad_entry(entry, "failed to load");
    kernel = backend.load_kernel(kernel_binary(desc, source, compile_and_store(), cuda));
  }
  if (dump_enabled("binary")) dump_binary(desc.name, hex(h), source, backend, cuda);
  return kernel;
}

}  // namespace

int compile_threads() {
  static const int n = [] {
    const char* env = std::getenv("EMBER_COMPILE_THREADS");
    int v = 0;
    if (env != nullptr && absl::SimpleAtoi(env, &v) && v >= 1) return v;
    // The cores this process may run on (a container's cpuset, not the host's count), at most
    // 16 by default: each NVRTC compile holds a few hundred MB.
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
    if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
    return std::clamp(cores, 1, 16);
  }();
  return n;
}

std::vector<std::shared_ptr<runtime::Kernel>> get_kernels(const std::vector<KernelDesc>& descs,
                                                          runtime::Backend& backend) {
  const int n = static_cast<int>(descs.size());
  std::vector<std::shared_ptr<runtime::Kernel>> out(descs.size());
  int compiling = 0;
  for (const KernelDesc& d : descs) compiling += d.host ? 0 : 1;
  const int threads = std::min(compile_threads(), compiling);
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) out[i] = get_kernel(descs[i], backend);
    return out;
  }
  std::atomic<int> next{0};
  std::vector<std::exception_ptr> errors(descs.size());
  auto work = [&] {
    for (int i = next++; i < n; i = next++) {
      try {
        out[i] = get_kernel(descs[i], backend);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return out;
}

}  // namespace ember::jit
