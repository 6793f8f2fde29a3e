// Runs a flushed graph on a compiling backend (Vulkan): plan, lower, compile (cached), launch,
// then report kernel-side errors against the outputs that depend on them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/attrs.h"
#include "ir/error.h"
#include "jit/compile/compile.h"
#include "jit/dump.h"
#include "jit/exec/executor.h"
#include "jit/lower/lower.h"
#include "jit/plan/fusion_switch.h"
#include "jit/plan/plan.h"
#include "jit/plan/split_reductions.h"
#include "jit/stats.h"
#include "jit/tune/matmul_tuning.h"
#include "jit/tune/pointwise_tuning.h"
#include "jit/tune/row_tuning.h"
#include "jit/tune/split_k.h"
#include "runtime/host_convert.h"

namespace ember::jit {
namespace {

// `details`: whether value and limit belong to this site (only the first failure records them).
std::string error_message(const ir::Graph& g, const ErrorSite& site, bool details, int64_t value,
                          uint32_t limit) {
  const ir::Node& n = g.node(site.node);
  if (site.kind == ErrorKind::DivisionByZero) {
    return labelled_error(n, absl::StrCat(ir::binary_name(n.get<ir::BinaryAttrs>().fn),
                                          ": integer division by zero"));
  }
  const char* op = n.op == ir::OpKind::Gather ? "gather" : "scatter";
  ir::ValueId target = n.inputs[0];
  std::string what = details ? absl::StrCat("index ", value) : "an index";
  std::string size = details ? absl::StrCat(" of size ", limit) : "";
  return labelled_error(n, absl::StrCat(op, ": ", what, " out of range for dim ", site.axis, size,
                                        " (tensor ", g.type(target).to_string(), ")"));
}

// Whether `v` is computed from `node` (or is it).
bool depends_on(const ir::Graph& g, ir::ValueId v, ir::ValueId node) {
  if (v < node) return false;
  std::vector<ir::ValueId> stack{v};
  std::vector<char> seen(g.size(), 0);
  while (!stack.empty()) {
    ir::ValueId u = stack.back();
    stack.pop_back();
    if (u == node) return true;
    if (u < node || seen[u]) continue;
    seen[u] = 1;
    for (ir::ValueId in : g.node(u).inputs) stack.push_back(in);
  }
  return false;
}

uint32_t groups_for(const LoweredKernel& lk, uint32_t max_groups) {
  uint64_t wg = lk.desc.workgroup_size;
  uint64_t g = lk.per_row ? lk.work_items : (lk.work_items + wg - 1) / wg;
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(g, 1), max_groups));
}

bool log_kernels() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_LOG");
    return env != nullptr && std::string_view(env).find("kernels") != std::string_view::npos;
  }();
  return on;
}

// EMBER_INPLACE=0 turns in-place buffer reuse off (every output gets a buffer of its own): a
// debugging switch for suspected aliasing problems.
bool in_place_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_INPLACE");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return on;
}

// EMBER_DEBUG_NAN=1: after every launch, the kernel's float outputs are read back and the
// first kernel that makes a NaN from inputs without one is reported on stderr (an anomaly
// detector for fused code; slow: one sync per kernel).
bool check_nans() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_DEBUG_NAN");
    return env != nullptr && std::string_view(env) == "1";
  }();
  return on;
}

bool has_nan(runtime::Backend& backend, const ir::Graph& g, ir::ValueId v, const runtime::Array& a);

void report_new_nans(const ir::Graph& g, const Plan& plan, int k, const LoweredKernel& lk,
                     const std::vector<std::optional<runtime::Array>>& arrays,
                     runtime::Backend& backend) {
  for (size_t i = 0; i < lk.bindings.size(); ++i) {
    if (!lk.writes[i] && has_nan(backend, g, lk.bindings[i], *arrays[lk.bindings[i]])) return;
  }
  for (ir::ValueId o : plan.kernels[k].outputs) {
    if (!has_nan(backend, g, o, *arrays[o])) continue;
    std::fprintf(stderr,
                 "ember: kernel %d (%s) wrote a NaN into %%%d from inputs without one\n%s\n%s", k,
                 lk.desc.name.c_str(), o, ir::print_node(g, o).c_str(), describe(lk.desc).c_str());
    return;
  }
}

// Device timestamps on for a measurement, whatever the user chose (set_device_timing).
class TimingOn {
 public:
  explicit TimingOn(runtime::Backend& b) : backend_(b), was_(b.set_timing(true)) {}
  ~TimingOn() { backend_.set_timing(was_); }
  TimingOn(const TimingOn&) = delete;
  TimingOn& operator=(const TimingOn&) = delete;

 private:
  runtime::Backend& backend_;
  bool was_;
};

// EMBER_LOG=kernels: runs each launch on its own (a debugging mode) to time it with device
// timestamps, then prints name, fused op count, time and effective bandwidth (bytes bound).
void log_launch(const ir::Graph& g, const LoweredKernel& lk, const runtime::Launch& l,
                runtime::Backend& backend) {
  backend.take_device_time_ns();
  backend.sync();
  double ns = backend.take_device_time_ns();
  double bytes = 0;
  for (ir::ValueId v : lk.bindings) {
    bytes += static_cast<double>(g.type(v).shape.numel() * dtype_size(g.type(v).dtype));
  }
  std::string time = ns >= 0 ? absl::StrFormat("%.3f ms, %.1f GB/s", ns / 1e6, bytes / ns)
                             : std::string("no device timer");
  std::fprintf(stderr, "ember kernel %s: %d ops fused, %u workgroups, %s\n", lk.desc.name.c_str(),
               lk.fused_nodes, l.groups[0], time.c_str());
}

// Everything that decides a flush's plan and kernel sources: the structural hash (ops, dtypes,
// ranks, which dims are 1 or equal) plus what the lowering specialises on beyond it: inputs'
// contiguity, empty values, and the vector path's divisibility and size thresholds.
uint64_t plan_key(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                  std::span<const runtime::Array> inputs, bool fusion,
                  const std::vector<MatmulChoice>& matmuls, const std::vector<RowChoice>& rows) {
  uint64_t h = ir::structural_hash(g, outputs) ^ (fusion ? 0x9e3779b97f4a7c15ull : 0);
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (const runtime::Array& a : inputs) mix(a.is_contiguous());
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const ir::Node& n = g.node(v);
    int64_t numel = n.type.shape.numel();
    mix((numel == 0) | (numel % 4 == 0) << 1 | (numel >= 1024) << 2);
    if (n.op == ir::OpKind::Reduce) {
      const Shape& in = g.type(n.inputs[0]).shape;
      int wg = rows[v].workgroup;
      mix(static_cast<uint64_t>(wg) << 8 | row_cache_steps(in[n.get<ir::ReduceAttrs>().axis], wg));
    }
    if (n.op == ir::OpKind::Matmul)
      mix(matmuls[v].block | matmuls[v].mma << 8 | matmuls[v].stages << 16);
    if (n.op == ir::OpKind::Pad) {  // unpadded dims skip the bounds test
      const auto& p = n.get<ir::PadAttrs>();
      uint64_t mask = 0;
      for (size_t d = 0; d < p.before.size(); ++d) mask |= uint64_t{p.before[d] || p.after[d]} << d;
      mix(mask);
    }
  }
  return h;
}

// FNV-1a over 64-bit words.
struct Fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void mix(uint64_t v) { h = (h ^ v) * 0x100000001b3ull; }
  template <class C>
  void mix_all(const C& xs) {
    mix(xs.size());
    for (auto x : xs) mix(static_cast<uint64_t>(x));
  }
};

// The inputs' part of layout_fingerprint: shapes, strides and offsets.
uint64_t input_layout_fingerprint(std::span<const runtime::Array> inputs) {
  Fnv f;
  for (const runtime::Array& a : inputs) {
    f.mix_all(a.type.shape.dims);
    f.mix_all(a.strides);
    f.mix(a.offset);
  }
  return f.h;
}

// Everything lowering reads beyond the plan key except runtime scalars (fill values, RNG seeds
// and offsets, pad values): every shape, every other attribute, every input's layout
// (`inputs_layout`: input_layout_fingerprint of the flush's inputs). Two flushes with equal
// plan keys and equal fingerprints lower to the same kernels with the same parameters but for
// the scalar words, which ScalarPatch rewrites.
uint64_t layout_fingerprint(const ir::Graph& g, uint64_t inputs_layout) {
  Fnv f;
  auto mix = [&f](uint64_t v) { f.mix(v); };
  for (const ir::Node& n : g.nodes()) {
    f.mix_all(n.type.shape.dims);
    ir::for_each_field(n.attrs, [&](const char*, const auto& v, ir::Role role) {
      if (role != ir::Role::Scalar) ir::field_words(v, mix);
    });
  }
  mix(inputs_layout);
  return f.h;
}

// A plan and its compiled kernels, reused by every flush with the same key: a repeated step
// is planned, rendered and compiled once. The lowered kernels of the last flush are kept too: a
// flush with the same layout fingerprint reuses them, rewriting only scalar parameters.
struct CachedPlan {
  Plan plan;
  std::vector<std::shared_ptr<runtime::Kernel>> kernels;
  std::mutex mutex;  // guards the two below
  uint64_t layout = 0;
  std::vector<LoweredKernel> lowered;
};

std::vector<float> download_as_f32(runtime::Backend& backend, const runtime::Array& a) {
  int64_t n = a.type.shape.numel();
  std::vector<uint8_t> raw(static_cast<size_t>(n) * dtype_size(a.type.dtype));
  backend.download(a, raw.data());
  std::vector<float> out(static_cast<size_t>(n));
  runtime::convert_elements(a.type.dtype, raw.data(), DType::F32, out.data(), n);
  return out;
}

bool has_nan(runtime::Backend& backend, const ir::Graph& g, ir::ValueId v,
             const runtime::Array& a) {
  DType t = g.type(v).dtype;
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16) return false;
  backend.sync();
  std::vector<float> x = download_as_f32(backend, a);
  return std::any_of(x.begin(), x.end(), [](float f) { return std::isnan(f); });
}

// Candidates reorder the K summation differently: equal up to rounding.
bool close_enough(const std::vector<float>& got, const std::vector<float>& want, float tolerance) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (!(std::abs(got[i] - want[i]) <= tolerance * (1.0f + std::abs(want[i])))) return false;
  }
  return true;
}

// A candidate is timed over a burst of about this many ms (3 to 32 launches).
constexpr double kBurstMs = 2.0;

// The tunable variant of a planned kernel: a matmul's SIMT block or tensor-core tile, a row
// kernel's workgroup size, a pointwise kernel's configuration.
int& tuned_variant(KernelPlan& kp) {
  if (kp.kind == KernelKind::Row) return kp.workgroup;
  if (kp.kind == KernelKind::Pointwise) return kp.pointwise;
  return kp.mma > 0 ? kp.mma : kp.block;
}
int tuned_variant(const KernelPlan& kp) { return tuned_variant(const_cast<KernelPlan&>(kp)); }

// The tuning key of kernel k (empty: nothing to tune): its matmul's or first reduction's, or
// for a pointwise kernel the one chosen with the plan (`pointwise_keys`, empty on plan hits).
const std::string& tune_key_of(const KernelPlan& kp, int k,
                               const std::vector<MatmulChoice>& matmuls,
                               const std::vector<RowChoice>& rows,
                               const std::vector<std::string>& pointwise_keys) {
  static const std::string none;
  if (kp.kind == KernelKind::Matmul) return matmuls[kp.anchor].tune_key;
  if (kp.kind == KernelKind::Row && !kp.reductions.empty()) return rows[kp.reductions[0]].tune_key;
  if (kp.kind == KernelKind::Pointwise && k < static_cast<int>(pointwise_keys.size()))
    return pointwise_keys[k];
  return none;
}

// Times kernel k of the plan (a matmul, row or pointwise kernel) with each variant of its template
// on this flush's buffers (its inputs are computed: earlier kernels were launched) and returns the
// winner. A candidate whose result differs from the heuristic variant's is discarded.
int tune_kernel(const ir::Graph& g, const Plan& plan, int k, const Emitter::LayoutFn& layout,
                const std::vector<std::optional<runtime::Array>>& arrays,
                runtime::Backend& backend) {
  ir::ValueId out = plan.kernels[k].outputs[0];
  std::vector<float> reference;
  std::set<int> checked;
  const bool mma = plan.kernels[k].mma > 0;
  // Variants sum in different orders; half-precision outputs then round apart by an ulp.
  DType out_type = g.type(out).dtype;
  float tolerance = out_type == DType::F16 || out_type == DType::BF16 ? 1e-2f : 1e-3f;
  auto time_variant = [&](int variant) -> double {
    Plan trial = plan;
    tuned_variant(trial.kernels[k]) = variant;
    LoweredKernel lk = lower_kernel(g, trial, k, layout);
    std::shared_ptr<runtime::Kernel> kernel = get_kernel(lk.desc, backend);
    runtime::Launch l;
    for (ir::ValueId b : lk.bindings) l.buffers.push_back(*arrays[b]);
    l.writes = lk.writes;
    l.params = lk.params;
    l.tiled_views = lk.tiled_views;
    l.groups[0] = groups_for(lk, backend.max_workgroups());
    backend.sync();
    backend.take_device_time_ns();
    backend.launch(*kernel, l);
    backend.sync();
    double ms = backend.take_device_time_ns() / 1e6;
    if (ms >= 0) {
      // A kernel timed alone reads the device's wake-up and submission as much as the kernel
      // (Vulkan on an H100: 3-5x its steady time, for long matmuls too, which then won or lost
      // at random): the first launch only warms up, a burst back to back is timed.
      int reps = static_cast<int>(std::clamp(kBurstMs / std::max(ms, 1e-3), 3.0, 32.0));
      for (int i = 0; i < reps; ++i) backend.launch(*kernel, l);
      backend.sync();
      ms = backend.take_device_time_ns() / 1e6 / reps;
    }
    if (checked.insert(variant).second) {
      std::vector<float> got = download_as_f32(backend, *arrays[out]);
      if (reference.empty()) {
        reference = std::move(got);
      } else if (!close_enough(got, reference, tolerance)) {
        return -1;
      }
    }
    return ms;
  };
  TimingOn timing(backend);
  // The heuristic's result is the check's reference.
  time_variant(tuned_variant(plan.kernels[k]));
  if (plan.kernels[k].kind == KernelKind::Row)
    return tune_row(g, plan.kernels[k].reductions[0], backend, time_variant);
  if (plan.kernels[k].kind == KernelKind::Pointwise)
    return tune_pointwise(g, plan.kernels[k], backend, time_variant);
  return tune_matmul(g, plan.kernels[k].anchor, backend, mma, time_variant);
}

// What launching a cached plan's kernel needs: everything but the kernel body (expressions and
// statements), which only compiling reads. Copying the body made reuse cost as much as lowering.
LoweredKernel launch_copy(const LoweredKernel& c) {
  LoweredKernel lk;
  lk.desc.name = c.desc.name;
  lk.desc.workgroup_size = c.desc.workgroup_size;
  lk.desc.uses_errors = c.desc.uses_errors;
  lk.desc.num_params = c.desc.num_params;
  lk.desc.dynamic_shared_bytes = c.desc.dynamic_shared_bytes;
  lk.desc.tensor_maps = c.desc.tensor_maps;
  lk.tiled_views = c.tiled_views;
  lk.bindings = c.bindings;
  lk.writes = c.writes;
  lk.params = c.params;
  lk.error_sites = c.error_sites;
  lk.scalar_patches = c.scalar_patches;
  lk.work_items = c.work_items;
  lk.per_row = c.per_row;
  lk.fused_nodes = c.fused_nodes;
  lk.mma = c.mma;
  lk.in_place_candidates = c.in_place_candidates;
  return lk;
}

// This flush's lowered kernels: the cached ones with this graph's scalars when the layout
// matches, else lowered afresh (and kept for the next flush).
std::vector<LoweredKernel> lowered_kernels(const ir::Graph& g, const Plan& plan, CachedPlan& cached,
                                           uint64_t layout, const Emitter::LayoutFn& layout_of) {
  {
    std::lock_guard lock(cached.mutex);
    if (cached.layout == layout && cached.lowered.size() == plan.kernels.size()) {
      std::vector<LoweredKernel> out;
      out.reserve(cached.lowered.size());
      for (const LoweredKernel& c : cached.lowered) out.push_back(launch_copy(c));
      for (LoweredKernel& lk : out) {
        for (const ScalarPatch& p : lk.scalar_patches) {
          ScalarWords words = scalar_field_words(g.node(p.node), p);
          std::copy(words.begin(), words.end(), lk.params.begin() + p.slot);
        }
      }
      counters().lowerings_reused.fetch_add(1, std::memory_order_relaxed);
      return out;
    }
  }
  std::vector<LoweredKernel> out;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
    out.push_back(lower_kernel(g, plan, k, layout_of));
  }
  std::lock_guard lock(cached.mutex);
  cached.layout = layout;
  cached.lowered = out;
  return out;
}

struct PlanCache {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::shared_ptr<CachedPlan>> plans;
};

// Bumped whenever cached plans are dropped: a replay memo holding one is stale then.
std::atomic<uint64_t> g_plan_generation{0};

std::mutex g_caches_mutex;
auto* g_caches = new std::unordered_map<const runtime::Backend*, PlanCache>;

PlanCache& plan_cache(const runtime::Backend* backend) {
  std::lock_guard lock(g_caches_mutex);
  return (*g_caches)[backend];
}

constexpr size_t kMaxCachedPlans = 1024;  // distinct step shapes a process keeps

// The variants a plan is made with, per matmul (node, block, tile, stages) and per reduction
// (node, workgroup); nullopt while one of them is still to be tuned (such a flush is not replayed).
std::optional<std::vector<int>> chosen_variants(const ir::Graph& g,
                                                const std::vector<MatmulChoice>& matmuls,
                                                const std::vector<RowChoice>& rows) {
  std::vector<int> out;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    ir::OpKind op = g.node(v).op;
    if (op == ir::OpKind::Matmul) {
      if (!matmuls[v].tune_key.empty()) return std::nullopt;
      out.insert(out.end(), {v, matmuls[v].block, matmuls[v].mma, matmuls[v].stages});
    } else if (op == ir::OpKind::Reduce) {
      if (!rows[v].tune_key.empty()) return std::nullopt;
      out.insert(out.end(), {v, rows[v].workgroup});
    }
  }
  return out;
}

}  // namespace

// What a replayed flush reuses: everything its plan and launches were derived from, and them.
struct ReplayMemo::State {
  uint64_t generation = 0;  // g_plan_generation when made
  bool fusion = false;
  std::vector<int> variants;  // chosen_variants
  uint64_t inputs_layout = 0;
  uint64_t key = 0;
  std::shared_ptr<CachedPlan> cached;
  Plan plan;                           // with this graph's index spaces
  std::vector<LoweredKernel> lowered;  // launch copies, with the last flush's scalars
};

ReplayMemo::ReplayMemo() = default;
ReplayMemo::~ReplayMemo() = default;
void ReplayMemo::forget() { state.reset(); }

namespace {

// The memo's state when this flush replays the last one: the same graph (the caller compared
// it), the same settings and stored variants, the same input layouts, no plan dropped since.
// The state leaves the memo either way, so a flush that throws leaves nothing stale behind.
std::unique_ptr<ReplayMemo::State> take_replay(ReplayMemo* memo, bool fusion,
                                               const std::optional<std::vector<int>>& variants,
                                               uint64_t inputs_layout) {
  if (memo == nullptr) return nullptr;
  std::unique_ptr<ReplayMemo::State> s = std::move(memo->state);
  if (!s || !memo->same_graph || !variants || s->generation != g_plan_generation.load() ||
      s->fusion != fusion || s->variants != *variants || s->inputs_layout != inputs_layout) {
    return nullptr;
  }
  return s;
}

// The replayed flush's kernels: the last flush's, with this graph's scalars where they changed.
std::vector<LoweredKernel> replayed_kernels(const ir::Graph& g, ReplayMemo::State& replay,
                                            bool same_scalars) {
  std::vector<LoweredKernel> out;
  out.reserve(replay.lowered.size());
  for (LoweredKernel& last : replay.lowered) {
    if (!same_scalars) {
      for (const ScalarPatch& p : last.scalar_patches) {
        ScalarWords words = scalar_field_words(g.node(p.node), p);
        std::copy(words.begin(), words.end(), last.params.begin() + p.slot);
      }
    }
    out.push_back(launch_copy(last));
  }
  counters().lowerings_reused.fetch_add(1, std::memory_order_relaxed);
  return out;
}

}  // namespace

void clear_plan_cache() {
  std::lock_guard lock(g_caches_mutex);
  for (auto& [backend, cache] : *g_caches) {
    std::lock_guard inner(cache.mutex);
    cache.plans.clear();
  }
  g_plan_generation.fetch_add(1);
}

std::vector<Outcome> execute_planned(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                     std::span<const runtime::Array> inputs,
                                     runtime::Backend& backend, ReplayMemo* memo);

// Rewrites before planning: split-K matmuls, then long reductions split in two. (Both are
// functions of the graph and the settings; a replay also checks the matmul variants chosen for
// the rewritten graph, so a memo of the original graph's flush serves the rewritten one.)
std::vector<Outcome> execute_compiled(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                      std::span<const runtime::Array> inputs,
                                      runtime::Backend& backend, ReplayMemo* memo) {
  const bool split_k = has_split_k(g, backend);
  if (!split_k && !has_long_reductions(g))
    return execute_planned(g, outputs, inputs, backend, memo);
  std::vector<ir::ValueId> split_outputs = outputs;
  ir::Graph split = split_k ? split_k_matmuls(g, split_outputs, backend)
                            : split_long_reductions(g, split_outputs);
  if (split_k && has_long_reductions(split)) split = split_long_reductions(split, split_outputs);
  return execute_planned(split, split_outputs, inputs, backend, memo);
}

std::vector<Outcome> execute_planned(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                     std::span<const runtime::Array> inputs,
                                     runtime::Backend& backend, ReplayMemo* memo) {
  const uint64_t generation = g_plan_generation.load();
  bool fusion = fusion_enabled();
  std::vector<MatmulChoice> matmuls = choose_matmul_blocks(g, backend);
  std::vector<RowChoice> rows = choose_row_workgroups(g, backend);
  const std::optional<std::vector<int>> variants = chosen_variants(g, matmuls, rows);
  const uint64_t inputs_layout = input_layout_fingerprint(inputs);
  std::unique_ptr<ReplayMemo::State> replay = take_replay(memo, fusion, variants, inputs_layout);
  uint64_t key = replay ? replay->key : plan_key(g, outputs, inputs, fusion, matmuls, rows);
  PlanCache& cache = plan_cache(&backend);
  std::shared_ptr<CachedPlan> cached;
  if (replay) {
    cached = replay->cached;
  } else {
    std::lock_guard lock(cache.mutex);
    if (auto it = cache.plans.find(key); it != cache.plans.end()) cached = it->second;
  }
  bool hit = cached != nullptr;
  Plan plan;
  std::vector<std::string> pointwise_keys;  // per kernel, on a plan miss: pointwise keys to tune
  if (replay) {
    counters().replays.fetch_add(1, std::memory_order_relaxed);
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
    plan = std::move(replay->plan);
  } else if (hit) {
    counters().cache_hits.fetch_add(1, std::memory_order_relaxed);
    // Same structure, maybe other sizes: the index spaces come from this graph.
    plan = cached->plan;
    for (KernelPlan& kp : plan.kernels) kp.shape = index_space(g, kp);
  } else {
    cached = std::make_shared<CachedPlan>();
    cached->plan = make_plan(g, outputs, fusion);
    for (KernelPlan& kp : cached->plan.kernels) {
      if (kp.kind == KernelKind::Matmul) {
        kp.block = matmuls[kp.anchor].block;
        kp.mma = matmuls[kp.anchor].mma;
        kp.stages = matmuls[kp.anchor].stages;
      }
      if (kp.kind == KernelKind::Row && !kp.reductions.empty())
        kp.workgroup = rows[kp.reductions[0]].workgroup;
    }
    pointwise_keys.resize(cached->plan.kernels.size());
    for (size_t k = 0; k < cached->plan.kernels.size(); ++k) {
      KernelPlan& kp = cached->plan.kernels[k];
      if (kp.kind == KernelKind::Pointwise)
        kp.pointwise = choose_pointwise(g, kp, backend, &pointwise_keys[k]);
    }
    plan = cached->plan;
  }
  std::vector<std::optional<runtime::Array>> arrays(g.size());
  std::vector<char> is_output(g.size(), 0);
  for (ir::ValueId o : outputs) is_output[o] = 1;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    if (g.node(v).op == ir::OpKind::Input) arrays[v] = inputs[g.node(v).get<ir::InputAttrs>().slot];
  }
  // Lower everything first against the layout values will have (outputs are fresh contiguous
  // buffers), so that buffers can be assigned knowing every kernel's reads.
  for (const KernelPlan& kp : plan.kernels) {
    for (ir::ValueId o : kp.outputs) arrays[o] = runtime::Array::contiguous(nullptr, g.type(o));
  }
  auto layout = [&](ir::ValueId v) -> const runtime::Array& { return *arrays[v]; };
  struct Launched {
    LoweredKernel lk;
    runtime::Array errors;
  };
  std::vector<Launched> launched;
  std::vector<int> last_read(g.size(), -1);
  std::map<std::string, int> tuned_now;  // keys tuned during this flush, with their winners
  // A cached plan's launches go to the backend as one sequence (a CUDA graph replay), unless
  // this flush tunes a kernel (tuning runs its candidates on the inputs earlier launches
  // compute) or launches are logged one by one.
  std::vector<runtime::SequencedLaunch> pending;
  bool retuned = false;  // a kernel runs another variant than the plan key was computed with
  bool sequence = hit && !log_kernels() && !check_nans();
  std::optional<TimingOn> log_timing;  // logged launches are timed
  if (log_kernels()) log_timing.emplace(backend);
  auto launch_pending = [&] {
    for (const runtime::SequencedLaunch& s : pending) backend.launch(*s.kernel, s.launch);
    pending.clear();
  };
  for (LoweredKernel& lk :
       replay ? replayed_kernels(g, *replay, memo->same_scalars)
              : lowered_kernels(g, plan, *cached, layout_fingerprint(g, inputs_layout), layout)) {
    launched.push_back({std::move(lk), {}});
    int k = static_cast<int>(launched.size()) - 1;
    for (ir::ValueId b : launched.back().lk.bindings) last_read[b] = k;
  }
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k) {
    LoweredKernel& lk = launched[k].lk;
    const std::string& tune_key = tune_key_of(plan.kernels[k], k, matmuls, rows, pointwise_keys);
    std::vector<ir::ValueId> donors;  // intermediates dying here, read only in place
    // (Not for a kernel about to be tuned: its candidates run again and again over the inputs.)
    if (tune_key.empty() && in_place_enabled()) {
      for (ir::ValueId v : lk.in_place_candidates) {
        if (last_read[v] == k && !is_output[v] && g.node(v).op != ir::OpKind::Input)
          donors.push_back(v);
      }
    }
    for (ir::ValueId o : plan.kernels[k].outputs) {
      size_t bytes = static_cast<size_t>(g.type(o).shape.numel()) * dtype_size(g.type(o).dtype);
      auto donor = std::find_if(donors.begin(), donors.end(),
                                [&](ir::ValueId v) { return arrays[v]->buffer->bytes() == bytes; });
      if (donor != donors.end()) {
        arrays[o] = runtime::Array::contiguous(arrays[*donor]->buffer, g.type(o));
        donors.erase(donor);
      } else {
        arrays[o] = backend.allocate(g.type(o));
      }
    }
    // A matmul or row kernel whose key is not tuned yet (plan hits included: sizes may differ),
    // or a pointwise kernel of a plan being made whose key is not, is tuned now; a different
    // winner changes this launch's kernel, and later flushes plan with it.
    std::shared_ptr<runtime::Kernel> tuned;
    // (A tensor-core request whose operands did not suit it ran the SIMT template: nothing
    // to tune.)
    bool fell_back =
        plan.kernels[k].kind == KernelKind::Matmul && plan.kernels[k].mma > 0 && !lk.mma;
    if (!tune_key.empty() && !lk.desc.uses_errors && !fell_back) {
      // Kernels of one key in one flush are tuned once.
      auto [winner, fresh] = tuned_now.try_emplace(tune_key, 0);
      if (fresh) {
        launch_pending();
        sequence = false;
        winner->second = tune_kernel(g, plan, k, layout, arrays, backend);
      }
      int variant = winner->second;
      if (variant != tuned_variant(plan.kernels[k])) {
        tuned_variant(plan.kernels[k]) = variant;
        lk = lower_kernel(g, plan, k, layout);
        if (hit) tuned = get_kernel(lk.desc, backend);
        // The plan key was computed with the untuned variant, which the kernels compiled for it
        // may be specialised on (a row kernel's register steps): a plan holding the tuned one
        // must not be found under it. The next flush plans afresh with the stored winner.
        retuned = true;
      }
    }
    if (!hit) cached->kernels.push_back(get_kernel(lk.desc, backend));
    const runtime::Kernel& kernel = tuned ? *tuned : *cached->kernels[k];
    runtime::Launch l;
    for (ir::ValueId b : lk.bindings) l.buffers.push_back(*arrays[b]);
    l.writes = lk.writes;
    l.params = lk.params;
    l.tiled_views = lk.tiled_views;
    if (lk.desc.uses_errors) {
      int64_t words = 4 + (static_cast<int64_t>(lk.error_sites.size()) + 31) / 32;
      std::vector<uint32_t> zeros(static_cast<size_t>(words), 0);
      launched[k].errors = backend.upload({DType::I32, Shape{words}}, zeros.data());
      l.buffers.push_back(launched[k].errors);
      l.writes.push_back(true);
    }
    l.groups[0] = groups_for(lk, backend.max_workgroups());
    if (lk.work_items > 0) {
      if (sequence) {
        pending.push_back({&kernel, std::move(l)});
      } else {
        backend.launch(kernel, l);
      }
      counters().kernels_launched.fetch_add(1, std::memory_order_relaxed);
      if (lk.mma) counters().mma_launches.fetch_add(1, std::memory_order_relaxed);
      if (log_kernels()) log_launch(g, lk, l, backend);
      if (check_nans()) report_new_nans(g, plan, k, lk, arrays, backend);
    }
    counters().ops_fused.fetch_add(std::max(0, lk.fused_nodes - 1), std::memory_order_relaxed);
  }
  // The plan as it ran: variants after tuning, and each kernel's description.
  if (dump_enabled("plan") && !hit) {
    std::string text = print_plan(g, plan);
    for (const Launched& L : launched) text += describe(L.lk.desc);
    dump(
        "plan",
        absl::StrCat("plan_", absl::Hex(ir::structural_hash(g, outputs), absl::kZeroPad16), ".txt"),
        text);
  }
  if (!pending.empty() && backend.launch_sequence(key, pending))
    counters().graph_launches.fetch_add(1, std::memory_order_relaxed);
  // Kernel-side checks must be read back now. Otherwise an ordered-stream backend (CUDA) keeps
  // running asynchronously and synchronises only when data is read; Vulkan submits here.
  bool checks = std::any_of(launched.begin(), launched.end(),
                            [](const auto& L) { return L.lk.desc.uses_errors; });
  if (checks || !backend.ordered_stream()) backend.sync();
  if (!hit && !retuned) {
    std::lock_guard lock(cache.mutex);
    if (cache.plans.size() >= kMaxCachedPlans) {
      cache.plans.clear();
      g_plan_generation.fetch_add(1);
    }
    cache.plans.emplace(key, cached);
  }

  // Kernel-side checks: a failing kernel fails its outputs and everything computed from them.
  std::vector<std::string> failed(g.size());
  for (size_t k = 0; k < launched.size(); ++k) {
    const Launched& L = launched[k];
    // An input that failed upstream fails every output of this kernel.
    std::string upstream;
    for (size_t i = 0; i < L.lk.bindings.size() && upstream.empty(); ++i) {
      if (!L.lk.writes[i] && !failed[L.lk.bindings[i]].empty()) upstream = failed[L.lk.bindings[i]];
    }
    std::vector<uint32_t> words;
    if (L.lk.desc.uses_errors) {
      words.resize(static_cast<size_t>(L.errors.type.shape.numel()));
      backend.download(L.errors, words.data());
    }
    for (ir::ValueId o : plan.kernels[k].outputs) {
      if (!upstream.empty()) {
        failed[o] = upstream;
        continue;
      }
      // A failed check fails only the outputs computed from the op that failed it.
      for (size_t s = 0; s < L.lk.error_sites.size() && !words.empty(); ++s) {
        bool fired = (words[4 + s / 32] >> (s % 32)) & 1u;
        if (!fired || !depends_on(g, o, L.lk.error_sites[s].node)) continue;
        bool first = words[0] == s + 1;
        int64_t value = static_cast<int64_t>(uint64_t{words[3]} << 32 | words[1]);
        failed[o] = error_message(g, L.lk.error_sites[s], first, value, words[2]);
        break;
      }
    }
  }
  std::vector<Outcome> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ir::ValueId o = outputs[i];
    if (!failed[o].empty()) {
      out[i].error = failed[o];
    } else {
      out[i].array = arrays[o];
    }
  }
  // Kept for the next flush of the same graph, unless this one tuned (it then plans afresh).
  if (memo != nullptr && variants && tuned_now.empty() && !retuned) {
    if (!replay) {
      replay = std::make_unique<ReplayMemo::State>();
      replay->generation = generation;
      replay->fusion = fusion;
      replay->variants = *variants;
      replay->inputs_layout = inputs_layout;
      replay->key = key;
      replay->cached = cached;
      for (const Launched& L : launched) replay->lowered.push_back(launch_copy(L.lk));
    }
    replay->plan = std::move(plan);
    memo->state = std::move(replay);
  }
  return out;
}

}  // namespace ember::jit
