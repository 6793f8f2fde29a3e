#include "frontend/detail/stream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontend/detail/block_pool.h"
#include "ir/compare.h"
#include "ir/error.h"
#include "jit/dump.h"
#include "jit/exec/executor.h"
#include "jit/stats.h"

namespace ember::detail {

runtime::BackendKind backend_kind(DeviceType type) {
  switch (type) {
    case DeviceType::Vulkan:
      return runtime::BackendKind::Vulkan;
    case DeviceType::Cuda:
      return runtime::BackendKind::Cuda;
    case DeviceType::Cpu:
      break;
  }
  return runtime::BackendKind::Cpu;
}

runtime::Backend& backend_for(const Device& device) {
  return runtime::backend(backend_kind(device.type()), device.index());
}

int max_pending_ops() {
  static const int limit = [] {
    int v = 0;
    const char* env = std::getenv("EMBER_MAX_PENDING_OPS");
    return env != nullptr && absl::SimpleAtoi(env, &v) && v > 0 ? v : 20000;
  }();
  return limit;
}

Stream& Stream::of(const Device& device) {
  // Streams live as long as the process, so a thread may keep the one it used last: an eager
  // step records hundreds of ops on one device, each looking its stream up.
  thread_local const Device* last_device = nullptr;
  thread_local Stream* last = nullptr;
  if (last != nullptr && *last_device == device) return *last;
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<Stream>> streams;
  std::lock_guard lock(mutex);
  auto& s = streams[{static_cast<int>(device.type()), device.index()}];
  if (!s) {
    backend_for(device);  // throws for unavailable devices; no stream is made for them
    s.reset(new Stream(device));
  }
  last = s.get();
  last_device = &s->device_;
  return *s;
}

ir::ValueId Stream::bind_locked(const RawTensor& t) {
  const auto& v = t.value();
  if (v->device != device_) {
    throw Error(absl::StrCat(ir::op_label("op"), ": tensors on different devices (",
                             v->device.to_string(), " and ", device_.to_string(), ")"));
  }
  if (!v->error.empty()) throw Error("input tensor failed to compute: " + v->error);
  if (v->node >= 0) return v->node;
  if (auto it = bound_ids_.find(v.get()); it != bound_ids_.end()) return it->second;
  ir::Builder b(graph_);
  int slot = static_cast<int>(inputs_.size());
  inputs_.push_back(*v->array);
  ir::ValueId id = b.input(slot, v->type);
  bound_.push_back(v);
  bound_ids_[v.get()] = id;
  return id;
}

ir::ValueId Stream::scalar_locked(ir::Builder& b, int rank, DType dtype, const ir::Scalar& value) {
  for (int i = 0; i < scalar_nodes_used_; ++i) {
    const ScalarNode& n = scalar_nodes_[i];
    if (n.dtype == dtype && n.rank == rank && ir::identical(n.value, value)) return n.id;
  }
  ir::ValueId id = b.full(Shape::ones(rank), dtype, value);
  scalar_nodes_[scalar_nodes_next_] = {value, dtype, rank, id};
  scalar_nodes_next_ = (scalar_nodes_next_ + 1) % static_cast<int>(scalar_nodes_.size());
  scalar_nodes_used_ = std::min(scalar_nodes_used_ + 1, static_cast<int>(scalar_nodes_.size()));
  return id;
}

// Compared once per flush, in one pass over the pending graph and each recent one of its size
// and outputs (comparing each node as it was recorded cost ~13% of recording a 200-op eager
// step: the last graph's nodes were out of cache by then). Size and outputs first: a graph that
// differs in those is not walked at all.
int Stream::find_repeat(const std::vector<ir::ValueId>& outputs, bool& scalars_same) const {
  for (int r = 0; r < kRecentFlushes; ++r) {
    const RecentFlush& last = recent_[r];
    if (last.flushed_at == 0 || graph_.size() != last.graph.size() || outputs != last.outputs)
      continue;
    bool same = true, all_scalars = true;
    for (ir::ValueId i = 0; same && i < graph_.size(); ++i) {
      ir::NodeMatch m = ir::match_nodes(graph_.node(i), last.graph.node(i));
      same = m != ir::NodeMatch::Different;
      all_scalars = all_scalars && m == ir::NodeMatch::Same;
    }
    if (same) {
      scalars_same = all_scalars;
      return r;
    }
  }
  scalars_same = false;
  return -1;
}

int Stream::least_recent() const {
  int oldest = 0;
  for (int r = 1; r < kRecentFlushes; ++r) {
    if (recent_[r].flushed_at < recent_[oldest].flushed_at) oldest = r;
  }
  return oldest;
}

RawTensor Stream::pending_value(ir::ValueId id) {
  auto v =
      std::allocate_shared<LazyValue>(PoolAllocator<LazyValue>(), device_, graph_.type(id), id);
  pending_.push_back(v);
  return RawTensor(std::move(v));
}

RawTensor Stream::finish_record(ir::ValueId id) {
  RawTensor t = pending_value(id);
  ++unflushed_ops_;
  if (graph_.size() >= max_pending_ops()) flush_locked();
  return t;
}

std::vector<RawTensor> Stream::record_graph(const ir::Graph& g,
                                            const std::vector<RawTensor>& inputs,
                                            const std::vector<ir::ValueId>& outputs) {
  std::lock_guard lock(mutex_);
  int mark = graph_.size();
  std::vector<ir::ValueId> ids(g.size());
  // On an error, nodes already appended stay unreferenced and the next flush prunes them.
  ir::Builder b(graph_);
  ir::ValueIds args;
  for (ir::ValueId i = 0; i < g.size(); ++i) {
    const ir::Node& n = g.node(i);
    if (n.op == ir::OpKind::Input) {
      ids[i] = bind_locked(inputs[n.get<ir::InputAttrs>().slot]);
      continue;
    }
    args.clear();
    for (ir::ValueId in : n.inputs) args.push_back(ids[in]);
    ids[i] = b.replay(n, args);
  }
  std::vector<RawTensor> results;
  absl::flat_hash_map<ir::ValueId, RawTensor> made;  // one value per node: outputs may repeat
  for (ir::ValueId o : outputs) {
    auto [it, fresh] = made.try_emplace(ids[o]);
    if (fresh) it->second = pending_value(ids[o]);
    results.push_back(it->second);
  }
  unflushed_ops_ += graph_.size() - mark;
  if (graph_.size() >= max_pending_ops()) flush_locked();
  return results;
}

namespace {

// Sources, elementwise ops and views: what a backward kernel recomputes for the cost of reading
// their inputs.
bool remade_cheaply(ir::OpKind op) {
  using K = ir::OpKind;
  return ir::is_elementwise(op) || op == K::Full || op == K::Iota || op == K::Random ||
         op == K::Reshape || op == K::Permute || op == K::Expand || op == K::Slice || op == K::Flip;
}

int64_t bytes_of(const TensorType& t) {
  return t.shape.numel() * static_cast<int64_t>(dtype_size(t.dtype));
}

}  // namespace

std::optional<std::vector<Stream::RecipeStep>> Stream::recipe(const RawTensor& t) {
  constexpr int kMaxSteps = 32;
  std::lock_guard lock(mutex_);
  const auto& v = t.value();
  if (v->node < 0 || v->device != device_) return std::nullopt;
  std::vector<RecipeStep> steps;
  absl::flat_hash_map<ir::ValueId, int> step_of;
  int64_t kept_bytes = 0;
  // Depth-first, inputs before the nodes that read them.
  std::vector<std::pair<ir::ValueId, size_t>> stack{{v->node, 0}};
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const ir::Node& n = graph_.node(id);
    if (n.op != ir::OpKind::Input && !remade_cheaply(n.op)) return std::nullopt;
    if (next < n.inputs.size()) {
      ir::ValueId in = n.inputs[next++];
      if (!step_of.contains(in)) stack.push_back({in, 0});
      continue;
    }
    RecipeStep step{n, {}, RawTensor()};
    for (ir::ValueId in : n.inputs) step.args.push_back(step_of.at(in));
    if (n.op == ir::OpKind::Input) {
      step.kept = RawTensor(bound_[n.get<ir::InputAttrs>().slot]);
      kept_bytes += bytes_of(n.type);
    }
    step_of[id] = static_cast<int>(steps.size());
    steps.push_back(std::move(step));
    stack.pop_back();
    if (static_cast<int>(steps.size()) > kMaxSteps || kept_bytes > bytes_of(v->type)) {
      return std::nullopt;
    }
  }
  return steps;
}

RawTensor Stream::wrap(runtime::Array array) {
  return RawTensor(
      std::allocate_shared<LazyValue>(PoolAllocator<LazyValue>(), device_, std::move(array)));
}

void Stream::keep_until_flushed(const RawTensor& t) {
  std::lock_guard lock(mutex_);
  if (t.value()->node >= 0) side_effects_.push_back(t.value());
}

void Stream::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

int64_t Stream::unflushed_ops() {
  std::lock_guard lock(mutex_);
  return unflushed_ops_;
}

void Stream::reset_unflushed_ops() {
  std::lock_guard lock(mutex_);
  unflushed_ops_ = 0;
}

namespace {

// EMBER_LOG=flush: per flush, the nodes, the host time since the last flush ended (recording)
// and in the flush itself (planning or replay, launching; on a GPU the kernels run after).
bool log_flushes() {
  static const bool on = jit::log_enabled("flush");
  return on;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void Stream::flush_locked() {
  const auto flush_start = std::chrono::steady_clock::now();
  const double recording_ms =
      last_flush_end_
          ? std::chrono::duration<double, std::milli>(flush_start - *last_flush_end_).count()
          : 0.0;
  const size_t nodes = graph_.size();
  jit::counters().ops_recorded.fetch_add(unflushed_ops_, std::memory_order_relaxed);
  unflushed_ops_ = 0;
  std::vector<std::shared_ptr<LazyValue>> live;
  std::vector<ir::ValueId> outputs;
  for (auto& w : pending_) {
    if (auto v = w.lock(); v && v->node >= 0) {
      outputs.push_back(v->node);
      live.push_back(std::move(v));
    }
  }
  if (!live.empty()) {
    jit::FlushHints hints;
    const int repeat = find_repeat(outputs, hints.same_scalars);
    const int slot = repeat >= 0 ? repeat : least_recent();
    RecentFlush& recent = recent_[slot];
    hints.stream = recent.replay_id;
    hints.same_graph = repeat >= 0;
    std::vector<ir::ValueId> recorded_outputs = outputs;  // prune renumbers `outputs`
    // When every pending node is needed (a chain of ops), the graph moves instead of being
    // copied node by node; it moves back if execution throws, so pending values stay intact.
    const bool whole = graph_.all_needed_by(outputs);
    ir::Graph g = whole ? std::move(graph_) : graph_.prune(outputs);
    std::vector<jit::Outcome> results;
    try {
      results = jit::execute(g, outputs, inputs_, backend_for(device_), hints);
    } catch (...) {
      last_flush_end_ = std::chrono::steady_clock::now();
      if (whole) graph_ = std::move(g);
      recent.graph.clear();  // nothing to replay after a failed flush
      recent.outputs.clear();
      recent.flushed_at = 0;
      throw;
    }
    // The recorded graph is what later flushes compare with; the storage of the one it replaces
    // records the next step (no regrowing).
    if (whole) {
      std::swap(recent.graph, g);
      graph_ = std::move(g);
    } else {
      std::swap(recent.graph, graph_);
    }
    recent.outputs = std::move(recorded_outputs);
    recent.flushed_at = ++flush_count_;
    for (size_t i = 0; i < live.size(); ++i) {
      live[i]->array = std::move(results[i].array);
      live[i]->error = std::move(results[i].error);
      live[i]->node = -1;
    }
  }
  graph_.clear();
  inputs_.clear();
  bound_.clear();
  bound_ids_.clear();
  pending_.clear();
  side_effects_.clear();
  scalar_nodes_used_ = scalar_nodes_next_ = 0;
  if (log_flushes() && nodes > 0) {
    std::fprintf(stderr, "ember flush: %zu nodes, recorded in %.3f ms, flushed in %.3f ms\n", nodes,
                 recording_ms, ms_since(flush_start));
  }
  last_flush_end_ = std::chrono::steady_clock::now();
}

bool Stream::computed(const RawTensor& t) {
  std::lock_guard lock(mutex_);
  return t.value()->array.has_value() && t.value()->error.empty();
}

const runtime::Array& Stream::materialize(const RawTensor& t) {
  std::lock_guard lock(mutex_);
  const auto& v = t.value();
  if (v->node >= 0) flush_locked();
  if (!v->error.empty()) throw Error(v->error);
  return *v->array;
}

}  // namespace ember::detail
