#include "runtime/cpu/host_compiler.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

#ifndef EMBER_HOST_CXX
#define EMBER_HOST_CXX "c++"
#endif

namespace ember::runtime::cpu {
namespace {

namespace fs = std::filesystem;

// Runs a shell command; its exit status and what it printed (stdout and stderr).
int run_command(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) output->append(buf, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The CPU model and its instruction-set flags (kernels are compiled with -march=native: a cache
// shared with another machine, or a VM that hides some flags, must not load them).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown-cpu", flags;
  while (std::getline(in, line) && (model == "unknown-cpu" || flags.empty())) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.rfind("model name", 0) == 0) model = line.substr(colon + 1);
    if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)
      flags = line.substr(colon + 1);
  }
  return model + " /" + flags;
}

HostCompiler* probe(std::string* why) {
  const char* env = std::getenv("EMBER_CXX");
  std::string path = env != nullptr && *env != '\0' ? env : EMBER_HOST_CXX;
  std::string out;
  if (run_command(shell_quoted(path) + " --version", &out) != 0 || out.empty()) {
    *why = absl::StrCat("no working C++ compiler (", path, " --version failed",
                        out.empty() ? "" : ": " + out.substr(0, out.find('\n')), ")");
    return nullptr;
  }
  auto* c = new HostCompiler;
  c->path = path;
  c->version = out.substr(0, out.find('\n'));
  // -ffp-contract=off: a multiply and an add are never fused, so a value recomputed in two
  // kernels has the same bits in both (as on the GPUs); IEEE semantics otherwise (NaN, inf).
  c->flags =
      // -fwrapv: signed integer arithmetic wraps, as the reference executor's does.
      "-O3 -march=native -fopenmp-simd -fwrapv -fPIC -shared -std=c++20 -ffp-contract=off "
      "-fno-math-errno "
      "-fno-trapping-math -fno-plt --param=vect-max-version-for-alias-checks=64 -w";
  c->machine = cpu_model();
  return c;
}

}  // namespace

const HostCompiler* host_compiler(std::string* why) {
  static std::string reason;
  static const HostCompiler* compiler = probe(&reason);
  if (compiler == nullptr && why != nullptr) *why = reason;
  return compiler;
}

void compile_shared_object(const std::string& source, const std::string& output,
                           const std::string& what) {
  const HostCompiler* c = host_compiler();
  if (c == nullptr) throw Error("cpu: no C++ compiler to compile " + what);
  fs::path src = output + ".cc";
  {
    std::ofstream out(src);
    out << source;
    if (!out) throw Error(absl::StrCat("cpu: cannot write ", src.string()));
  }
  std::string log;
  int status = run_command(absl::StrCat(shell_quoted(c->path), " ", c->flags, " -o ",
                                        shell_quoted(output), " ", shell_quoted(src), " -lm"),
                           &log);
  std::error_code ec;
  fs::remove(src, ec);
  if (status != 0) {
    fs::remove(output, ec);
    throw Error(absl::StrCat("cpu: compiling ", what, " with ", c->path, " failed:\n", log));
  }
}

void compile_shared_object(const std::vector<std::string>& sources, const std::string& output,
                           const std::string& what) {
  if (sources.size() == 1) return compile_shared_object(sources.front(), output, what);
  const HostCompiler* c = host_compiler();
  if (c == nullptr) throw Error("cpu: no C++ compiler to compile " + what);
  const size_t n = sources.size();
  std::vector<std::string> logs(n);
  std::vector<int> status(n, -1);
  std::vector<fs::path> srcs(n), objs(n);
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < n; ++i) {
      srcs[i] = absl::StrCat(output, ".", i, ".cc");
      objs[i] = absl::StrCat(output, ".", i, ".o");
      threads.emplace_back([&, i] {
        std::ofstream out(srcs[i]);
        out << sources[i];
        out.close();
        if (!out) {
          logs[i] = "cannot write " + srcs[i].string();
          return;
        }
        status[i] = run_command(
            absl::StrCat(shell_quoted(c->path), " ", c->flags, " -c -o ",
                         shell_quoted(objs[i].string()), " ", shell_quoted(srcs[i].string())),
            &logs[i]);
      });
    }
  }
  std::error_code ec;
  for (const fs::path& s : srcs) fs::remove(s, ec);
  auto remove_objects = [&] {
    for (const fs::path& o : objs) fs::remove(o, ec);
  };
  for (size_t i = 0; i < n; ++i) {
    if (status[i] != 0) {
      remove_objects();
      throw Error(absl::StrCat("cpu: compiling ", what, " (part ", i + 1, " of ", n, ") with ",
                               c->path, " failed:\n", logs[i]));
    }
  }
  std::string link =
      absl::StrCat(shell_quoted(c->path), " ", c->flags, " -o ", shell_quoted(output));
  for (const fs::path& o : objs) absl::StrAppend(&link, " ", shell_quoted(o.string()));
  std::string log;
  int linked = run_command(link + " -lm", &log);
  remove_objects();
  if (linked != 0) {
    fs::remove(output, ec);
    throw Error(absl::StrCat("cpu: linking ", what, " with ", c->path, " failed:\n", log));
  }
}

void* open_library(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw Error(absl::StrCat("cpu: cannot load ", path, ": ", dlerror()));
  return handle;
}

void* library_symbol(void* library, const std::string& symbol) {
  void* f = dlsym(library, symbol.c_str());
  if (f == nullptr) throw Error(absl::StrCat("cpu: kernel library lacks ", symbol));
  return f;
}

}  // namespace ember::runtime::cpu
