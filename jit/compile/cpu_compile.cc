#include "jit/compile/cpu_compile.h"

#define XXH_INLINE_ALL
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/error.h"
#include "jit/codegen/cpp_source.h"
#include "jit/compile/compile.h"
#include "jit/dump.h"
#include "jit/stats.h"
#include "runtime/cpu/host_compiler.h"

namespace ember::jit {
namespace {

namespace fs = std::filesystem;

// Bumped whenever rendering or the library layout changes.
constexpr uint32_t kCpuCacheFormat = 1;

struct Library {
  void* handle = nullptr;
};

std::mutex& libraries_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<uint64_t, Library>& libraries() {
  static auto* m = new std::map<uint64_t, Library>;  // loaded libraries stay for the process
  return *m;
}

std::string hex(uint64_t h) { return absl::StrCat(absl::Hex(h, absl::kZeroPad16)); }

// The sidecar of a cached library: the 128-bit digest of what made it and a checksum of its
// bytes. A library whose sidecar is missing or disagrees is rebuilt.
struct Stamp {
  XXH128_hash_t key;
  uint64_t checksum;
};

bool file_checksum(const fs::path& path, uint64_t* sum) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  *sum = XXH3_64bits(bytes.data(), bytes.size());
  return !bytes.empty();
}

bool verified(const fs::path& lib, const fs::path& stamp_path, const XXH128_hash_t& key) {
  std::ifstream in(stamp_path, std::ios::binary);
  Stamp s;
  uint32_t format = 0;
  if (!in.read(reinterpret_cast<char*>(&format), sizeof(format)) ||
      !in.read(reinterpret_cast<char*>(&s), sizeof(s)) || format != kCpuCacheFormat ||
      !XXH128_isEqual(s.key, key)) {
    return false;
  }
  uint64_t sum = 0;
  return file_checksum(lib, &sum) && sum == s.checksum;
}

// Compiles into a temporary name, then renames the library and its stamp into place: a reader
// sees the old entry or the whole new one.
void compile_entry(const std::vector<std::string>& source, const fs::path& lib,
                   const fs::path& stamp_path, const XXH128_hash_t& key, const std::string& what) {
  std::error_code ec;
  fs::create_directories(lib.parent_path(), ec);
  std::string suffix = absl::StrCat(".tmp", getpid(), "_", gettid());
  fs::path tmp_lib = lib.string() + suffix, tmp_stamp = stamp_path.string() + suffix;
  auto t0 = std::chrono::steady_clock::now();
  runtime::cpu::compile_shared_object(source, tmp_lib.string(), what);
  auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  counters().compiles.fetch_add(1, std::memory_order_relaxed);
  counters().compile_us.fetch_add(us, std::memory_order_relaxed);
  static const bool log = log_enabled("compiles");
  if (log) {
    std::fprintf(stderr, "ember: compile %s: %.1f ms, %zu translation units\n", what.c_str(),
                 static_cast<double>(us) / 1e3, source.size());
  }
  Stamp s{key, 0};
  if (!file_checksum(tmp_lib, &s.checksum)) throw Error("cpu: compiler wrote nothing for " + what);
  {
    std::ofstream out(tmp_stamp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&kCpuCacheFormat), sizeof(kCpuCacheFormat));
    out.write(reinterpret_cast<const char*>(&s), sizeof(s));
  }
  fs::rename(tmp_lib, lib, ec);
  if (!ec) fs::rename(tmp_stamp, stamp_path, ec);
  fs::remove(tmp_lib, ec);
  fs::remove(tmp_stamp, ec);
}

// The loaded library of `source` (its translation units): from memory, from the disk cache, or
// compiled now.
void* library_for(const std::vector<std::string>& source, const std::string& what) {
  const runtime::cpu::HostCompiler* c = runtime::cpu::host_compiler();
  std::string key_text = absl::StrCat(absl::StrJoin(source, "\n// next translation unit\n"), "\n//",
                                      c->version, "/", c->flags, "/", c->machine);
  uint64_t h = XXH3_64bits(key_text.data(), key_text.size());
  std::lock_guard lock(libraries_mutex());
  if (auto it = libraries().find(h); it != libraries().end()) {
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
    return it->second.handle;
  }
  if (dump_enabled("kernels")) {
    for (size_t i = 0; i < source.size(); ++i)
      dump("kernels",
           absl::StrCat("cpu_", hex(h), source.size() > 1 ? absl::StrCat("_", i) : "", ".cc"),
           source[i]);
  }
  const XXH128_hash_t key = XXH3_128bits_withSeed(key_text.data(), key_text.size(), 0x656d626572);
  fs::path dir = fs::path(cache_dir()) / "cpu";
  fs::path lib = dir / (hex(h) + ".so"), stamp = dir / (hex(h) + ".stamp");
  if (verified(lib, stamp, key)) {
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    compile_entry(source, lib, stamp, key, what);
  }
  void* handle = runtime::cpu::open_library(lib.string());
  libraries()[h].handle = handle;
  return handle;
}

// A first step's plan holds dozens of kernels, and the compiler uses one core: the plan's
// library is compiled as several translation units at once (EMBER_COMPILE_THREADS), the kernels
// dealt to them by size. Small plans stay whole (each part pays the headers and a link).
constexpr size_t kMinPartExprs = 100;

std::vector<std::vector<int>> split_for_compile(const std::vector<const KernelDesc*>& all) {
  std::vector<int> order;
  size_t total = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i]->host) continue;
    order.push_back(static_cast<int>(i));
    total += all[i]->exprs.size();
  }
  const size_t parts = std::max<size_t>(
      1, std::min({static_cast<size_t>(compile_threads()), order.size(), total / kMinPartExprs}));
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return all[a]->exprs.size() > all[b]->exprs.size(); });
  std::vector<std::vector<int>> out(parts);
  std::vector<size_t> load(parts, 0);
  for (int i : order) {  // largest first into the lightest part
    size_t p = std::min_element(load.begin(), load.end()) - load.begin();
    out[p].push_back(i);
    load[p] += all[i]->exprs.size();
  }
  for (auto& part : out) std::sort(part.begin(), part.end());
  return out;
}

}  // namespace

void forget_cpu_libraries() {
  std::lock_guard lock(libraries_mutex());
  libraries().clear();
}

std::vector<std::shared_ptr<runtime::Kernel>> get_cpu_kernels(const std::vector<KernelDesc>& descs,
                                                              runtime::Backend& backend) {
  std::vector<const KernelDesc*> all;
  std::string what;
  for (const KernelDesc& d : descs) {
    if (d.exprs.size() > kMaxCpuKernelExprs) {
      throw CompileDeclined(absl::StrCat("cpu: kernel ", d.name, " has ", d.exprs.size(),
                                         " expressions; not compiled"));
    }
    all.push_back(&d);
    if (!d.host) absl::StrAppend(&what, what.empty() ? "" : ", ", d.name);
  }
  std::vector<std::shared_ptr<runtime::Kernel>> out(descs.size());
  if (what.empty()) return out;
  std::vector<std::string> sources;
  for (const std::vector<int>& part : split_for_compile(all))
    sources.push_back(render_cpp(all, part));
  void* library = library_for(sources, "kernels " + what);
  for (size_t i = 0; i < descs.size(); ++i) {
    if (descs[i].host) continue;
    runtime::KernelBinary bin;
    bin.name = descs[i].name;
    bin.num_buffers = static_cast<int>(descs[i].buffers.size()) + descs[i].uses_errors;
    bin.workgroup_size = 1;
    bin.host_entry =
        runtime::cpu::library_symbol(library, cpp_entry(descs[i], static_cast<int>(i)));
    out[i] = backend.load_kernel(bin);
  }
  return out;
}

}  // namespace ember::jit
