// Runs a flushed graph on a compiling backend (Vulkan, CUDA) in stages: rewrites, plan (which
// kernels, of which families), freeze (every kernel's variant chosen, tuned where asked, before
// anything is lowered), lower, compile, launch (jit/exec/launch.h). The caches of plan_cache.h
// are short-cuts between these stages.
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "ir/compare.h"
#include "ir/rewrite.h"
#include "jit/codegen/kernel.h"
#include "jit/compile/compile.h"
#include "jit/compile/cpu_compile.h"
#include "jit/dump.h"
#include "jit/exec/executor.h"
#include "jit/exec/launch.h"
#include "jit/exec/plan_cache.h"
#include "jit/lower/lower.h"
#include "jit/plan/fusion_switch.h"
#include "jit/plan/plan.h"
#include "jit/stats.h"
#include "jit/tune/freeze.h"
#include "kernels/family.h"
#include "kernels/registry.h"

namespace ember::jit {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// EMBER_LOG=flush: the host time of the stages before the launch (rewrites, the replay check
// or planning), to find where a replayed step's host time goes.
bool log_stages() {
  static const bool on = log_enabled("flush");
  return on;
}

// Arrays of the flush: the inputs as given, every kernel output a contiguous placeholder (its
// layout at launch; the launch stage gives it a buffer).
std::vector<std::optional<runtime::Array>> flush_arrays(const ir::Graph& g, const Plan& plan,
                                                        std::span<const runtime::Array> inputs) {
  std::vector<std::optional<runtime::Array>> arrays(g.size());
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op == ir::OpKind::Input) arrays[v] = inputs[g.node(v).get<ir::InputAttrs>().slot];
  }
  for (const KernelPlan& kp : plan.kernels) {
    for (ir::ValueId o : kp.outputs) arrays[o] = runtime::Array::contiguous(nullptr, g.type(o));
  }
  return arrays;
}

// The memo's state when this flush replays the last one: the same graph (the caller compared
// it), the same settings and input layouts, no plan dropped since, and the same variants chosen
// again (a stored winner or a forced variant may have changed). The state leaves the memo
// either way, so a flush that throws leaves nothing stale behind.
std::unique_ptr<ReplayMemo::State> take_replay(const ir::Graph& g, ReplayMemo* memo, bool fusion,
                                               uint64_t inputs_layout,
                                               std::span<const runtime::Array> inputs,
                                               runtime::Backend& backend) {
  if (memo == nullptr) return nullptr;
  std::unique_ptr<ReplayMemo::State> s = std::move(memo->state);
  if (!s || !memo->same_graph || s->generation != plan_generation() || s->fusion != fusion ||
      s->inputs_layout != inputs_layout) {
    return nullptr;
  }
  // Nothing the families choose by has changed: the variants stand as frozen.
  const uint64_t epoch = variant_epoch();
  if (s->variant_epoch == epoch) return s;
  Plan plan = s->plan;
  std::vector<std::optional<runtime::Array>> arrays = flush_arrays(g, plan, inputs);
  auto layout = [&](ir::ValueId v) -> const runtime::Array& { return *arrays[v]; };
  if (freeze_variants(g, plan, layout, backend, /*tune=*/false)) return nullptr;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    if (plan.kernels[k].variant != s->plan.kernels[k].variant) return nullptr;
  }
  s->variant_epoch = epoch;
  return s;
}

// The plan of g's structure: the cached one with g's index spaces, or a new one.
Plan plan_for(const ir::Graph& g, const std::vector<ir::ValueId>& outputs, bool fusion,
              uint64_t structure, PlanCache& cache, const runtime::Backend& backend) {
  std::shared_ptr<const Plan> cached = cache.structure(structure);
  if (!cached) {
    auto made = std::make_shared<const Plan>(
        make_plan(g, outputs, fusion, backend.max_bindings(), families(backend)));
    cache.add_structure(structure, made);
    return *made;
  }
  counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
  Plan plan = *cached;
  for (KernelPlan& kp : plan.kernels) kp.shape = index_space(g, kp);
  return plan;
}

// The lowering stage: the compiled plan's last launches with this graph's scalars when every
// layout matches, else every kernel lowered afresh (its descriptions in `descs`, for compiling).
std::vector<LaunchSpec> lowered_launches(const ir::Graph& g, const Plan& plan,
                                         CompiledPlan& compiled, uint64_t layout,
                                         const Emitter::LayoutFn& layout_of,
                                         std::vector<KernelDesc>* descs) {
  {
    std::lock_guard lock(compiled.mutex);
    if (descs == nullptr && compiled.layout == layout &&
        compiled.launches.size() == plan.kernels.size()) {
      std::vector<LaunchSpec> out = compiled.launches;
      for (LaunchSpec& l : out) patch_scalars(g, l);
      counters().lowerings_reused.fetch_add(1, std::memory_order_relaxed);
      return out;
    }
  }
  std::vector<LaunchSpec> out;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
    LoweredKernel lk = lower_kernel(g, plan, k, layout_of);
    out.push_back(std::move(lk.launch));
    if (descs != nullptr) descs->push_back(std::move(lk.desc));
  }
  std::lock_guard lock(compiled.mutex);
  compiled.layout = layout;
  compiled.launches = out;
  return out;
}

// EMBER_DUMP=plan: the frozen plan as it runs, then each kernel's description.
void dump_plan(const ir::Graph& g, const std::vector<ir::ValueId>& outputs, const Plan& plan,
               const std::vector<KernelDesc>& descs) {
  if (!dump_enabled("plan")) return;
  std::string text = print_plan(g, plan);
  for (const KernelDesc& d : descs) text += describe(d);
  dump("plan",
       absl::StrCat("plan_", absl::Hex(ir::structural_hash(g, outputs), absl::kZeroPad16), ".txt"),
       text);
}

std::vector<Outcome> execute_planned(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                     std::span<const runtime::Array> inputs,
                                     runtime::Backend& backend, ReplayMemo* memo) {
  const uint64_t generation = plan_generation();
  const bool fusion = fusion_enabled();
  const uint64_t inputs_layout = input_layout_fingerprint(inputs);
  PlanCache& cache = PlanCache::of(&backend);
  const auto t_check = Clock::now();
  std::unique_ptr<ReplayMemo::State> replay =
      take_replay(g, memo, fusion, inputs_layout, inputs, backend);
  if (log_stages()) {
    std::fprintf(stderr, "ember stages: replay check (%s) in %.3f ms\n",
                 replay ? "replays" : "plans", ms_since(t_check));
  }
  if (replay) {
    counters().replays.fetch_add(1, std::memory_order_relaxed);
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
    if (!memo->same_scalars) {
      for (LaunchSpec& l : replay->launches) patch_scalars(g, l);
    }
    counters().lowerings_reused.fetch_add(1, std::memory_order_relaxed);
    std::vector<std::optional<runtime::Array>> arrays = flush_arrays(g, replay->plan, inputs);
    std::vector<Outcome> out = launch_plan(
        g, outputs, {replay->plan, replay->launches, replay->compiled->kernels, replay->key},
        arrays, backend);
    memo->state = std::move(replay);
    return out;
  }
  // Plan, then freeze every kernel's variant.
  const uint64_t structure = structure_key(g, outputs, inputs, fusion);
  Plan plan = plan_for(g, outputs, fusion, structure, cache, backend);
  std::vector<std::optional<runtime::Array>> arrays = flush_arrays(g, plan, inputs);
  auto layout = [&](ir::ValueId v) -> const runtime::Array& { return *arrays[v]; };
  // Before choosing: a winner another stream stores meanwhile makes the next replay check all.
  const uint64_t epoch = variant_epoch();
  freeze_variants(g, plan, layout, backend, /*tune=*/true);
  uint64_t key = frozen_key(structure, g, plan);
  // The CPU compiles sizes and strides into its kernels: its compiled plans are per layout.
  if (backend.kind() == runtime::DeviceKind::Cpu)
    key = (key ^ layout_fingerprint(g, inputs_layout)) * 0x100000001b3ull;
  // Lower and compile, unless this frozen plan was compiled before.
  std::shared_ptr<CompiledPlan> compiled = cache.compiled(key);
  const bool hit = compiled != nullptr;
  if (!hit) compiled = std::make_shared<CompiledPlan>();
  std::vector<KernelDesc> descs;
  std::vector<LaunchSpec> launches = lowered_launches(
      g, plan, *compiled, layout_fingerprint(g, inputs_layout), layout, hit ? nullptr : &descs);
  if (!hit) {
    if (backend.kind() == runtime::DeviceKind::Cpu) {
      compiled->kernels = get_cpu_kernels(descs, backend);  // one library for the plan
    } else {
      compiled->kernels = get_kernels(descs, backend);
    }
    dump_plan(g, outputs, plan, descs);
    cache.add_compiled(key, compiled);
  }
  // A cached plan's launches go to the backend as one sequence (a CUDA graph replay).
  std::vector<Outcome> out =
      launch_plan(g, outputs, {plan, launches, compiled->kernels, hit ? key : 0}, arrays, backend);
  if (memo != nullptr) {
    auto state = std::make_unique<ReplayMemo::State>();
    state->generation = generation;
    state->variant_epoch = epoch;
    state->fusion = fusion;
    state->inputs_layout = inputs_layout;
    state->key = key;
    state->plan = std::move(plan);
    state->compiled = std::move(compiled);
    state->launches = std::move(launches);
    memo->state = std::move(state);
  }
  return out;
}

}  // namespace

namespace {

// Whether a node's attributes hold a value that differs between flushes of one structure.
bool has_scalars(const ir::Node& n) {
  return std::visit(
      [](const auto& a) {
        bool any = false;
        std::decay_t<decltype(a)>::fields([&](const char*, auto member, ir::Role role) {
          using T = std::decay_t<decltype(a.*member)>;
          any = any || role == ir::Role::Scalar || std::is_same_v<T, ir::Scalar>;
        });
        return any;
      },
      n.attrs);
}

// The rewrite of g to keep for its next flush; `map` is what became of g's nodes.
std::unique_ptr<KeptRewrite> keep_rewrite(const ir::Graph& g, ir::Graph rewritten,
                                          std::vector<ir::ValueId> outputs,
                                          const std::vector<ir::ValueId>& map) {
  auto kept = std::make_unique<KeptRewrite>();
  kept->graph = std::move(rewritten);
  kept->outputs = std::move(outputs);
  std::vector<char> frozen(g.size(), 0);
  for (ir::ValueId i = 0; i < g.size(); ++i) {
    if (map[i] >= 0) continue;
    frozen[i] = 1;
    // A rule that replaced or absorbed a node may have read its operands' scalars (the scale
    // constant of a matched attention chain, an input of the chain's dropped interior).
    for (ir::ValueId in : g.node(i).inputs) frozen[in] = 1;
  }
  for (ir::ValueId i = 0; i < g.size(); ++i) {
    if (!has_scalars(g.node(i))) continue;
    if (frozen[i]) kept->frozen.emplace_back(i, g.node(i));
    if (map[i] >= 0) kept->patches.emplace_back(i, map[i]);
  }
  return kept;
}

// Whether the kept rewrite serves g (the graph of its flush, node for node, but for scalars):
// then it carries g's scalars.
bool reuse_rewrite(const ir::Graph& g, KeptRewrite& kept, bool same_scalars) {
  if (same_scalars) return true;
  for (const auto& [orig, node] : kept.frozen) {
    if (ir::match_nodes(g.node(orig), node) != ir::NodeMatch::Same) return false;
  }
  for (const auto& [orig, copy] : kept.patches) kept.graph.set_attrs(copy, g.node(orig).attrs);
  return true;
}

}  // namespace

// Rewrites before planning, each family's in registry order (split-K matmuls, then long
// reductions split in two). Both are functions of the graph and the settings, so a memo of the
// original graph's flush serves the rewritten one when the settings are the same; a flush that
// repeats the last one takes the last rewrite with its own scalars.
std::vector<Outcome> execute_compiled(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                      std::span<const runtime::Array> inputs,
                                      runtime::Backend& backend, ReplayMemo* memo) {
  const auto t_rewrite = Clock::now();
  uint64_t settings = 0;
  for (const Family* f : families(backend)) settings = settings * 1000003u + f->rewrite_settings();
  // A memo made under other rewrite switches holds the plan of another rewritten graph.
  if (memo != nullptr && memo->state && memo->state->rewrite_settings != settings) memo->forget();
  std::unique_ptr<KeptRewrite> kept;
  if (memo != nullptr && memo->same_graph && memo->state && memo->state->rewrite) {
    if (reuse_rewrite(g, *memo->state->rewrite, memo->same_scalars)) {
      kept = std::move(memo->state->rewrite);
    } else {
      memo->forget();  // a scalar a rule read changed: the rewrite, and so the plan, may differ
    }
  }
  std::optional<ir::Graph> rewritten;
  std::vector<ir::ValueId> rewritten_outputs = outputs;
  std::vector<ir::ValueId> map(static_cast<size_t>(g.size()));
  if (!kept) {
    std::iota(map.begin(), map.end(), 0);
    std::vector<ir::ValueId> step;
    for (const Family* f : families(backend)) {
      const ir::Graph& current = rewritten ? *rewritten : g;
      if (!f->rewrites(current, backend)) continue;
      rewritten = f->rewrite(current, rewritten_outputs, backend, &step);
      ir::compose_old_to_new(map, step);
    }
  }
  // The last flush's plan is of the last rewritten graph: a fresh rewrite of the same recorded
  // graph (the last flush was not rewritten, or its rewrite not kept) may be another graph.
  if (memo != nullptr && !kept && rewritten) memo->same_graph = false;
  if (log_stages()) {
    std::fprintf(stderr, "ember stages: rewrites (%d -> %d nodes, %s) in %.3f ms\n", g.size(),
                 kept        ? kept->graph.size()
                 : rewritten ? rewritten->size()
                             : g.size(),
                 kept ? "kept" : "made", ms_since(t_rewrite));
  }
  std::vector<Outcome> out =
      kept        ? execute_planned(kept->graph, kept->outputs, inputs, backend, memo)
      : rewritten ? execute_planned(*rewritten, rewritten_outputs, inputs, backend, memo)
                  : execute_planned(g, outputs, inputs, backend, memo);
  if (memo != nullptr && memo->state) {
    memo->state->rewrite_settings = settings;
    if (!kept && rewritten) {
      kept = keep_rewrite(g, std::move(*rewritten), std::move(rewritten_outputs), map);
    }
    memo->state->rewrite = std::move(kept);
  }
  return out;
}

}  // namespace ember::jit
