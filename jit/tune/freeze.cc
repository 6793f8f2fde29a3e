#include "jit/tune/freeze.h"

#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "jit/compile/compile.h"
#include "jit/tune/tune_kernel.h"
#include "kernels/family.h"
#include "kernels/tuning.h"

extern char** environ;

namespace ember::jit {
namespace {

// Keys whose kernels check their inputs at run time (tune_kernel): never tuned, and not tried
// again by later flushes.
std::mutex g_untunable_mutex;
std::set<std::string>& untunable() {
  static auto* keys = new std::set<std::string>;
  return *keys;
}

// Tuning compiles each candidate just before timing it, one after another: a cold CUDA training
// step spent most of its start there (28 of its 39 compiles). Every candidate of the flush is
// compiled first, together on all cores (get_kernels), so that tuning finds them in the kernel
// cache. A candidate that fails here fails again, reported, when tuning compiles it.
void precompile_candidates(const ir::Graph& g, const Plan& plan,
                           const std::vector<std::string>& keys, const Emitter::LayoutFn& layout,
                           runtime::Backend& backend) {
  std::vector<KernelDesc> descs;
  std::set<std::string> scanned;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    if (keys[k].empty() || !scanned.insert(keys[k]).second) continue;
    for (KernelDesc& d : tuning_candidates(g, plan, static_cast<int>(k), layout, backend))
      descs.push_back(std::move(d));
  }
  if (descs.size() < 2) return;
  try {
    get_kernels(descs, backend);
  } catch (const std::exception&) {
  }
}

}  // namespace

uint64_t variant_epoch() {
  // FNV-1a over every EMBER_ variable (name and value) in the order the environment lists them.
  uint64_t h = 0xcbf29ce484222325ull ^ winners_generation();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view var(*e);
    if (var.rfind("EMBER_", 0) != 0) continue;
    for (char c : var) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;  // separator
  }
  return h;
}

bool freeze_variants(const ir::Graph& g, Plan& plan, const Emitter::LayoutFn& layout,
                     runtime::Backend& backend, bool tune) {
  const VariantContext context{g, plan, layout, backend};
  std::vector<std::string> keys(plan.kernels.size());
  bool to_tune = false;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelPlan& kp = plan.kernels[k];
    VariantChoice c = kp.family->choose(context, kp);
    kp.variant = c.variant;
    if (c.tune_key.empty()) continue;
    std::lock_guard lock(g_untunable_mutex);
    if (untunable().count(c.tune_key) == 0) {
      keys[k] = std::move(c.tune_key);
      to_tune = true;
    }
  }
  if (!to_tune || !tune) return to_tune;
  precompile_candidates(g, plan, keys, layout, backend);
  // Kernels of one key in one flush are tuned once. The winner is remembered for the key, so
  // choosing again picks it, as each kernel's operands admit it.
  std::set<std::string> tuned;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    if (keys[k].empty()) continue;
    if (tuned.insert(keys[k]).second) {
      bool tunable = true;
      tune_kernel(g, plan, static_cast<int>(k), layout, backend, &tunable);
      if (!tunable) {
        std::lock_guard lock(g_untunable_mutex);
        untunable().insert(keys[k]);
      }
    }
    plan.kernels[k].variant = plan.kernels[k].family->choose(context, plan.kernels[k]).variant;
  }
  return false;
}

}  // namespace ember::jit
