#pragma once
// The short-cuts between the stages: a flush whose graph has the structure of an earlier one
// takes that flush's plan instead of planning (the structure cache); one whose frozen plan
// matches an earlier one's takes its compiled kernels (the kernel cache) and, when every
// layout matches too, its lowered launches with this graph's scalars; one that repeats one of
// its stream's last few distinct flushes node for node replays it (ReplayMemo) without hashing.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/exec/executor.h"
#include "jit/lower/lower.h"
#include "kernels/kernel_plan.h"

namespace ember::jit {

// Everything that decides a flush's plan: the structural hash (ops, dtypes, ranks, which dims
// are 1 or equal), the fusion switch, inputs' contiguity, empty values, the vector path's
// divisibility and size thresholds, which dims a pad pads.
uint64_t structure_key(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                       std::span<const runtime::Array> inputs, bool fusion);
// structure_key plus every kernel's family, variant and specialisation: what compiled code
// depends on.
uint64_t frozen_key(uint64_t structure, const ir::Graph& g, const Plan& plan);
// The inputs' shapes, strides and offsets.
uint64_t input_layout_fingerprint(std::span<const runtime::Array> inputs);
// Everything lowering reads beyond the frozen key except runtime scalars (fill values, RNG seeds
// and offsets, pad values): every shape, every other attribute, the inputs' layout. Two flushes
// with equal frozen keys and fingerprints lower to the same launches but for the scalar words,
// which patch_scalars rewrites.
uint64_t layout_fingerprint(const ir::Graph& g, uint64_t inputs_layout);

// A frozen plan's compiled kernels, and the launches of the last flush that lowered it.
struct CompiledPlan {
  std::vector<std::shared_ptr<runtime::Kernel>> kernels;
  std::mutex mutex;  // guards the two below
  uint64_t layout = 0;
  std::vector<LaunchSpec> launches;
};

// Structures the CPU target declined to compile (jit/compile/cpu_compile.h CompileDeclined):
// they run on the reference executor without planning again.
void decline_structure(uint64_t hash);
bool structure_declined(uint64_t hash);

// A backend's caches. Plans are shared read-only; a flush copies the one it uses.
class PlanCache {
 public:
  static PlanCache& of(const runtime::Backend* backend);
  std::shared_ptr<const Plan> structure(uint64_t key);
  void add_structure(uint64_t key, std::shared_ptr<const Plan> plan);
  std::shared_ptr<CompiledPlan> compiled(uint64_t key);
  void add_compiled(uint64_t key, std::shared_ptr<CompiledPlan> plan);

 private:
  friend void clear_plan_cache();
  void make_room();  // drops everything once the caches hold kMaxCachedPlans
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<const Plan>> structures_;
  std::unordered_map<uint64_t, std::shared_ptr<CompiledPlan>> compiled_;
};

// Bumped whenever cached plans are dropped: a replay memo holding one is stale then.
uint64_t plan_generation();

struct ReplayMemo;
// The replay slot of the flush's stream, its hints set; null when the flush names no stream.
ReplayMemo* replay_slot(const FlushHints& hints);

// A stream's replay slot: what its last flush left to reuse, and this flush's hints.
struct ReplayMemo {
  ReplayMemo();
  ~ReplayMemo();
  void forget();  // nothing to reuse
  bool same_graph = false;
  bool same_scalars = false;
  struct State;
  std::unique_ptr<State> state;  // null: nothing
};

// The families' rewrite of a flush's graph (split-K, long reductions, sorted scatters, matched
// attention), kept for the next flush of the same graph: rewriting ~9000 nodes took 3.3 ms of
// every gpt_small_train_step on an H100. Scalars (fill values, seeds, optimizer steps) change
// between such flushes: `patches` names where each scalar-carrying node's copy is, and `frozen`
// holds the scalar-carrying nodes a rule replaced, dropped or read for a replacement, which
// must not have changed for the kept rewrite to stand.
struct KeptRewrite {
  ir::Graph graph;
  std::vector<ir::ValueId> outputs;
  std::vector<std::pair<ir::ValueId, ir::ValueId>> patches;  // (original node, its copy)
  std::vector<std::pair<ir::ValueId, ir::Node>> frozen;      // (original node, as it was)
};

// What a replayed flush reuses: everything its frozen plan and launches were derived from.
struct ReplayMemo::State {
  uint64_t generation = 0;        // plan_generation() when made
  uint64_t variant_epoch = 0;     // variant_epoch() when the plan's variants were chosen
  uint64_t rewrite_settings = 0;  // the families' rewrite switches (Family::rewrite_settings)
  bool fusion = false;
  uint64_t inputs_layout = 0;
  uint64_t key = 0;  // frozen_key
  Plan plan;         // frozen, with this graph's index spaces
  std::shared_ptr<CompiledPlan> compiled;
  std::vector<LaunchSpec> launches;      // with the last flush's scalars
  std::unique_ptr<KeptRewrite> rewrite;  // null: the graph was not rewritten
};

}  // namespace ember::jit
