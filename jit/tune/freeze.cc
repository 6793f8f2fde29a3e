#include "jit/tune/freeze.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "jit/compile/compile.h"
#include "jit/tune/budget.h"
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
// step spent most of its start there (28 of its 39 compiles). A batch of kernels' candidates is
// compiled first, together on all cores (get_kernels), so that tuning finds them in the kernel
// cache. A candidate that fails here fails again, reported, when tuning compiles it.
void precompile(const std::vector<KernelDesc>& descs, runtime::Backend& backend) {
  if (descs.size() < 2) return;
  try {
    get_kernels(descs, backend);
  } catch (const std::exception&) {
  }
}

// A kernel's work, to tune the costly ones first when the budget cannot cover all: its index
// space, times the contraction of a product or a convolution.
double kernel_work(const ir::Graph& g, const KernelPlan& kp) {
  if (kp.anchor >= 0) {
    const ir::Node& n = g.node(kp.anchor);
    const double outputs = static_cast<double>(n.type.shape.numel());
    if (n.op == ir::OpKind::Matmul) return outputs * g.type(n.inputs[0]).shape.dims.back();
    if (n.op == ir::OpKind::Conv) {
      const Shape& w = g.type(n.inputs[1]).shape;
      return w[0] == 0 ? 0 : outputs * static_cast<double>(w.numel() / w[0]);
    }
  }
  return static_cast<double>(kp.shape.numel());
}

// Say once per process that tuning is spread over the run.
void note_deferred(size_t count) {
  static std::once_flag once;
  std::call_once(once, [count] {
    const char* env = std::getenv("EMBER_TUNE_BUDGET");
    std::fprintf(stderr,
                 "ember: autotune: %zu kernels keep their heuristic launch configuration for "
                 "now and are tuned as the budget grows (EMBER_TUNE_BUDGET=%s; 'unlimited' "
                 "tunes every kernel at once)\n",
                 count, env != nullptr && *env != '\0' ? env : "0.5+10%, the default");
  });
}

// Tunes each key once (the first kernel of it), costly kernels first, in batches whose
// candidates compile together, while the budget has time; the keys left are deferred.
void tune_within_budget(const ir::Graph& g, const Plan& plan, const std::vector<std::string>& keys,
                        const Emitter::LayoutFn& layout, runtime::Backend& backend) {
  std::vector<size_t> order;
  std::set<std::string> seen;
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    if (!keys[k].empty() && seen.insert(keys[k]).second) order.push_back(k);
  std::vector<double> work(plan.kernels.size(), 0);
  for (size_t k : order) work[k] = kernel_work(g, plan.kernels[k]);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return work[a] > work[b]; });
  TuneBudget& budget = TuneBudget::process();
  // Without a limit every candidate compiles at once (no round waits on its slowest compile).
  const size_t round = tune_budget_setting().unlimited
                           ? std::numeric_limits<size_t>::max()
                           : static_cast<size_t>(std::max(1, compile_threads()));
  size_t next = 0;
  while (next < order.size() && budget.has_time()) {
    const auto start = std::chrono::steady_clock::now();
    // The next kernels whose candidates make one round of compiles on every thread (the
    // budget is looked at between rounds and between the kernels timed).
    std::vector<size_t> batch;
    std::vector<KernelDesc> candidates;
    for (size_t i = next; i < order.size() && (batch.empty() || candidates.size() < round); ++i) {
      batch.push_back(order[i]);
      for (KernelDesc& d : tuning_candidates(g, plan, static_cast<int>(order[i]), layout, backend))
        candidates.push_back(std::move(d));
    }
    precompile(candidates, backend);
    auto spend_since = [&](std::chrono::steady_clock::time_point t) {
      budget.spend(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
      return std::chrono::steady_clock::now();
    };
    auto t = spend_since(start);
    for (size_t k : batch) {
      if (k != batch.front() && !budget.has_time()) break;
      bool tunable = true;
      tune_kernel(g, plan, static_cast<int>(k), layout, backend, &tunable);
      if (!tunable) {
        std::lock_guard lock(g_untunable_mutex);
        untunable().insert(keys[k]);
      }
      t = spend_since(t);
      ++next;
    }
  }
  for (size_t i = next; i < order.size(); ++i) budget.defer(keys[order[i]]);
  if (next < order.size()) note_deferred(order.size() - next);
}

}  // namespace

uint64_t variant_epoch() {
  // FNV-1a over every EMBER_ variable (name and value) in the order the environment lists them.
  uint64_t h = 0xcbf29ce484222325ull ^ winners_generation() ^
               (TuneBudget::process().generation() * 0x9e3779b97f4a7c15ull);
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
  TuneBudget& budget = TuneBudget::process();
  std::vector<std::string> keys(plan.kernels.size());
  bool to_tune = false;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    KernelPlan& kp = plan.kernels[k];
    VariantChoice c = kp.family->choose(context, kp);
    kp.variant = c.variant;
    if (c.tune_key.empty() || budget.deferred(c.tune_key)) continue;
    std::lock_guard lock(g_untunable_mutex);
    if (untunable().count(c.tune_key) == 0) {
      keys[k] = std::move(c.tune_key);
      to_tune = true;
    }
  }
  if (!to_tune || !tune) return to_tune;
  tune_within_budget(g, plan, keys, layout, backend);
  // The winners are remembered by key, so choosing again picks them, as each kernel's operands
  // admit them; deferred keys keep the heuristic's variant.
  for (KernelPlan& kp : plan.kernels) kp.variant = kp.family->choose(context, kp).variant;
  return false;
}

}  // namespace ember::jit
