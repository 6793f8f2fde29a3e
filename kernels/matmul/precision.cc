#include "kernels/matmul/precision.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ember::jit {
namespace {
std::atomic<bool> g_allow_tf32{false};
}

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow); }
bool allow_tf32() { return g_allow_tf32.load(); }

bool tensor_cores_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("EMBER_MMA");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

bool tma_enabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("EMBER_TMA");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return enabled;
}

}  // namespace ember::jit
