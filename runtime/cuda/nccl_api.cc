#include "runtime/cuda/nccl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::cuda {

const Nccl* nccl(std::string* why) {
  static std::string error;
  static const Nccl* table = []() -> const Nccl* {
    // $EMBER_NCCL_LIBRARY, when set, is the only candidate (what a user pointed at is what
    // runs, and a test can make NCCL absent).
    std::vector<std::string> names;
    if (const char* env = std::getenv("EMBER_NCCL_LIBRARY"); env != nullptr && *env != '\0') {
      names.emplace_back(env);
    } else {
      names = {"libnccl.so.2", "libnccl.so"};
    }
    void* lib = nullptr;
    for (const std::string& n : names) {
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    }
    if (lib == nullptr) {
      error = absl::StrCat("cannot load ", names.front(), ": ", dlerror(),
                           " (install NCCL or set EMBER_NCCL_LIBRARY to libnccl.so.2's path)");
      return nullptr;
    }
    auto* n = new Nccl;
#define EMBER_NCCL_LOAD(name)                                       \
  n->name = reinterpret_cast<decltype(n->name)>(dlsym(lib, #name)); \
  if (n->name == nullptr) {                                         \
    error = "libnccl lacks " #name;                                 \
    return nullptr;                                                 \
  }
    EMBER_NCCL_FUNCS(EMBER_NCCL_LOAD)
#undef EMBER_NCCL_LOAD
    return n;
  }();
  if (why) *why = error;
  return table;
}

void check_nccl(ncclResult_t r, const std::string& what) {
  if (r == ncclSuccess) return;
  const Nccl* n = nccl();
  const char* msg = n ? n->ncclGetErrorString(r) : "unknown error";
  throw Error(absl::StrCat("nccl: ", what, " failed: ", msg, " (ncclResult ", r, ")"));
}

}  // namespace ember::runtime::cuda
