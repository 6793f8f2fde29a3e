#include "jit/exec/plan_cache.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/attrs.h"
#include "kernels/family.h"

namespace ember::jit {
namespace {

constexpr size_t kMaxCachedPlans = 1024;  // distinct step shapes a process keeps

std::atomic<uint64_t> g_plan_generation{0};
std::mutex g_caches_mutex;
auto* g_caches = new std::unordered_map<const runtime::Backend*, PlanCache>;

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

}  // namespace

uint64_t structure_key(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                       std::span<const runtime::Array> inputs, bool fusion) {
  uint64_t h = ir::structural_hash(g, outputs) ^ (fusion ? 0x9e3779b97f4a7c15ull : 0);
  auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  for (const runtime::Array& a : inputs) mix(a.is_contiguous());
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const ir::Node& n = g.node(v);
    int64_t numel = n.type.shape.numel();
    mix((numel == 0) | (numel % 4 == 0) << 1 | (numel >= 1024) << 2);
    if (n.op == ir::OpKind::Pad) {  // unpadded dims skip the bounds test
      const auto& p = n.get<ir::PadAttrs>();
      uint64_t mask = 0;
      for (size_t d = 0; d < p.before.size(); ++d) mask |= uint64_t{p.before[d] || p.after[d]} << d;
      mix(mask);
    }
  }
  return h;
}

uint64_t frozen_key(uint64_t structure, const ir::Graph& g, const Plan& plan) {
  Fnv f;
  f.mix(structure);
  for (const KernelPlan& kp : plan.kernels) {
    f.mix(reinterpret_cast<uintptr_t>(kp.family));
    f.mix(kp.variant);
    f.mix(kp.family->specialisation(g, kp));
  }
  return f.h;
}

uint64_t input_layout_fingerprint(std::span<const runtime::Array> inputs) {
  Fnv f;
  for (const runtime::Array& a : inputs) {
    f.mix_all(a.type.shape.dims);
    f.mix_all(a.strides);
    f.mix(a.offset);
  }
  return f.h;
}

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

PlanCache& PlanCache::of(const runtime::Backend* backend) {
  std::lock_guard lock(g_caches_mutex);
  return (*g_caches)[backend];
}

std::shared_ptr<const Plan> PlanCache::structure(uint64_t key) {
  std::lock_guard lock(mutex_);
  auto it = structures_.find(key);
  return it == structures_.end() ? nullptr : it->second;
}

void PlanCache::add_structure(uint64_t key, std::shared_ptr<const Plan> plan) {
  std::lock_guard lock(mutex_);
  make_room();
  structures_.emplace(key, std::move(plan));
}

std::shared_ptr<CompiledPlan> PlanCache::compiled(uint64_t key) {
  std::lock_guard lock(mutex_);
  auto it = compiled_.find(key);
  return it == compiled_.end() ? nullptr : it->second;
}

void PlanCache::add_compiled(uint64_t key, std::shared_ptr<CompiledPlan> plan) {
  std::lock_guard lock(mutex_);
  make_room();
  compiled_.emplace(key, std::move(plan));
}

void PlanCache::make_room() {
  if (structures_.size() + compiled_.size() < 2 * kMaxCachedPlans) return;
  structures_.clear();
  compiled_.clear();
  g_plan_generation.fetch_add(1);
}

uint64_t plan_generation() { return g_plan_generation.load(); }

namespace {
std::mutex g_declined_mutex;
}  // namespace

std::unordered_set<uint64_t>* g_declined = new std::unordered_set<uint64_t>;

void decline_structure(uint64_t hash) {
  std::lock_guard lock(g_declined_mutex);
  g_declined->insert(hash);
}

bool structure_declined(uint64_t hash) {
  std::lock_guard lock(g_declined_mutex);
  return g_declined->count(hash) != 0;
}

void clear_plan_cache() {
  {
    std::lock_guard lock(g_declined_mutex);
    g_declined->clear();
  }
  std::lock_guard lock(g_caches_mutex);
  for (auto& [backend, cache] : *g_caches) {
    std::lock_guard inner(cache.mutex_);
    cache.structures_.clear();
    cache.compiled_.clear();
  }
  g_plan_generation.fetch_add(1);
}

ReplayMemo::ReplayMemo() = default;
ReplayMemo::~ReplayMemo() = default;
void ReplayMemo::forget() { state.reset(); }

namespace {

struct ReplaySlots {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::unique_ptr<ReplayMemo>> slots;
};

// Never destroyed: streams release their slots from their own destructors at exit, in whatever
// order static objects go.
ReplaySlots& replay_slots() {
  static ReplaySlots* slots = new ReplaySlots;
  return *slots;
}

}  // namespace

uint64_t new_stream_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

void release_stream(uint64_t stream) {
  std::unique_ptr<ReplayMemo> gone;  // destroyed outside the lock
  ReplaySlots& r = replay_slots();
  std::lock_guard lock(r.mutex);
  auto it = r.slots.find(stream);
  if (it == r.slots.end()) return;
  gone = std::move(it->second);
  r.slots.erase(it);
}

ReplayMemo* replay_slot(const FlushHints& hints) {
  if (hints.stream == 0) return nullptr;
  ReplaySlots& r = replay_slots();
  std::lock_guard lock(r.mutex);
  std::unique_ptr<ReplayMemo>& slot = r.slots[hints.stream];
  if (!slot) slot = std::make_unique<ReplayMemo>();
  slot->same_graph = hints.same_graph;
  slot->same_scalars = hints.same_scalars;
  return slot.get();
}

}  // namespace ember::jit
