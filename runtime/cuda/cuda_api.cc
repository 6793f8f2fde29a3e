#include "runtime/cuda/cuda_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::cuda {
namespace {

void* open_first(std::initializer_list<const char*> names, std::string& error) {
  for (const char* n : names) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
  }
  error = absl::StrCat("cannot load ", *names.begin(), ": ", dlerror());
  return nullptr;
}

}  // namespace

const Driver* driver(std::string* why) {
  static std::string error;
  static const Driver* table = []() -> const Driver* {
    void* lib = open_first({"libcuda.so.1", "libcuda.so"}, error);
    if (lib == nullptr) return nullptr;
    auto* d = new Driver;
#define EMBER_CU_LOAD(name, symbol)                                   \
  d->name = reinterpret_cast<decltype(d->name)>(dlsym(lib, #symbol)); \
  if (d->name == nullptr) {                                           \
    error = "libcuda.so.1 lacks " #symbol;                            \
    return nullptr;                                                   \
  }
    EMBER_CU_FUNCS(EMBER_CU_LOAD)
#undef EMBER_CU_LOAD
    d->has_graphs = true;
#define EMBER_CU_LOAD_OPTIONAL(name, symbol)                          \
  d->name = reinterpret_cast<decltype(d->name)>(dlsym(lib, #symbol)); \
  d->has_graphs = d->has_graphs && d->name != nullptr;
    EMBER_CU_GRAPH_FUNCS(EMBER_CU_LOAD_OPTIONAL)
    d->has_capture = d->has_graphs;
#undef EMBER_CU_LOAD_OPTIONAL
#define EMBER_CU_LOAD_CAPTURE(name, symbol)                           \
  d->name = reinterpret_cast<decltype(d->name)>(dlsym(lib, #symbol)); \
  d->has_capture = d->has_capture && d->name != nullptr;
    EMBER_CU_CAPTURE_FUNCS(EMBER_CU_LOAD_CAPTURE)
#undef EMBER_CU_LOAD_CAPTURE
    d->cuTensorMapEncodeTiled =
        reinterpret_cast<decltype(d->cuTensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled"));
    CUresult r = d->cuInit(0);
    if (r != CUDA_SUCCESS) {
      error = absl::StrCat("cuInit failed (CUresult ", r, ")");
      return nullptr;
    }
    return d;
  }();
  if (why) *why = error;
  return table;
}

const Nvrtc* nvrtc(std::string* why) {
  static std::string error;
  static const Nvrtc* table = []() -> const Nvrtc* {
    void* lib = open_first({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, error);
    if (lib == nullptr) return nullptr;
    auto* n = new Nvrtc;
#define EMBER_NVRTC_LOAD(name)                                      \
  n->name = reinterpret_cast<decltype(n->name)>(dlsym(lib, #name)); \
  if (n->name == nullptr) {                                         \
    error = "libnvrtc lacks " #name;                                \
    return nullptr;                                                 \
  }
    EMBER_NVRTC_FUNCS(EMBER_NVRTC_LOAD)
#undef EMBER_NVRTC_LOAD
    return n;
  }();
  if (why) *why = error;
  return table;
}

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  if (const Driver* d = driver()) d->cuGetErrorString(r, &msg);
  throw Error(absl::StrCat("cuda: ", what, " failed: ", msg ? msg : "unknown error", " (", r, ")"));
}

std::string nvrtc_version() {
  const Nvrtc* n = nvrtc();
  if (n == nullptr) return "none";
  int major = 0, minor = 0;
  n->nvrtcVersion(&major, &minor);
  return absl::StrCat(major, ".", minor);
}

namespace {

// EMBER_NVRTC_VERBOSE=1: ptxas reports each kernel's registers, spills and shared memory, and
// every compile's log goes to stderr (otherwise the log is read only when a compile fails, so a
// generated kernel's spills went unseen).
bool nvrtc_verbose() {
  const char* env = std::getenv("EMBER_NVRTC_VERBOSE");
  return env != nullptr && std::string_view(env) == "1";
}

std::string program_log(const Nvrtc& n, nvrtcProgram prog) {
  size_t size = 0;
  n.nvrtcGetProgramLogSize(prog, &size);
  std::string log(size, '\0');
  n.nvrtcGetProgramLog(prog, log.data());
  return log;
}

}  // namespace

std::vector<char> nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch, bool ptx) {
  std::string why;
  const Nvrtc* n = nvrtc(&why);
  if (n == nullptr) throw Error("cuda: NVRTC unavailable: " + why);
  nvrtcProgram prog;
  if (n->nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    throw Error("cuda: nvrtcCreateProgram failed for " + name);
  }
  std::string arch_opt = absl::StrCat(ptx ? "--gpu-architecture=compute_" : "--gpu-architecture=",
                                      ptx ? arch.substr(3) : arch);
  // Approximate f32 division and square root (2 ulp, full range, denormals kept): what GLSL
  // gives on the same GPU, and the difference between memory-bound and ALU-bound row kernels.
  // No contraction of a multiply and an add: a value fusion recomputes in two kernels must have
  // the same bits in both (fmaf where an FMA is wanted).
  std::vector<const char*> opts = {arch_opt.c_str(),  "-default-device",  "--std=c++17",
                                   "-prec-div=false", "-prec-sqrt=false", "--fmad=false"};
  const bool verbose = nvrtc_verbose();
  if (verbose && !ptx) opts.push_back("--ptxas-options=-v");
  nvrtcResult r = n->nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  if (r != NVRTC_SUCCESS) {
    const std::string log = program_log(*n, prog);
    n->nvrtcDestroyProgram(&prog);
    throw Error(absl::StrCat("cuda: NVRTC compile of ", name, " for ", arch, " failed:\n", log,
                             "\n", source));
  }
  if (verbose) {
    std::fprintf(stderr, "ember nvrtc: %s for %s:\n%s\n", name.c_str(), arch.c_str(),
                 program_log(*n, prog).c_str());
  }
  size_t size = 0;
  std::vector<char> out;
  if (ptx) {
    n->nvrtcGetPTXSize(prog, &size);
    out.resize(size);
    n->nvrtcGetPTX(prog, out.data());
  } else {
    n->nvrtcGetCUBINSize(prog, &size);
    out.resize(size);
    n->nvrtcGetCUBIN(prog, out.data());
  }
  n->nvrtcDestroyProgram(&prog);
  return out;
}

}  // namespace ember::runtime::cuda
