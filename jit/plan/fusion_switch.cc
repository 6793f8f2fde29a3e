#include "jit/plan/fusion_switch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace ember::jit {
namespace {
std::atomic<int> g_override{-1};
}

bool fusion_enabled() {
  int o = g_override.load();
  if (o >= 0) return o != 0;
  const char* env = std::getenv("EMBER_FUSION");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

void set_fusion_override(int enabled) { g_override.store(enabled); }

}  // namespace ember::jit
