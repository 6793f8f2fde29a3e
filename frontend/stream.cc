#include "frontend/stream.h"

#include <cstdlib>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "jit/executor.h"
#include "jit/stats.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/vulkan/vk_backend.h"

namespace ember::detail {

runtime::Backend& backend_for(const Device& device) {
  switch (device.type()) {
    case DeviceType::Cpu:
      return runtime::cpu_backend();
    case DeviceType::Vulkan: {
      std::string why;
      int n = runtime::vulkan_device_count(&why);
      if (device.index() >= n) {
        throw Error(absl::StrCat("device ", device.to_string(), " is not available: ",
                                 n == 0 ? why : absl::StrCat("only ", n, " Vulkan device(s)")));
      }
      return runtime::vulkan_backend(device.index());
    }
    case DeviceType::Cuda: {
      std::string why;
      int n = runtime::cuda_device_count(&why);
      if (device.index() >= n) {
        throw Error(absl::StrCat("device ", device.to_string(), " is not available: ",
                                 n == 0 ? why : absl::StrCat("only ", n, " CUDA device(s)")));
      }
      return runtime::cuda_backend(device.index());
    }
  }
  throw Error("unknown device " + device.to_string());
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
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<Stream>> streams;
  std::lock_guard lock(mutex);
  auto& s = streams[{static_cast<int>(device.type()), device.index()}];
  if (!s) {
    backend_for(device);  // throws for unavailable devices; no stream is made for them
    s.reset(new Stream(device));
  }
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

RawTensor Stream::pending_value(ir::ValueId id) {
  auto v = std::make_shared<LazyValue>();
  v->device = device_;
  v->type = graph_.type(id);
  v->node = id;
  pending_.push_back(v);
  return RawTensor(std::move(v));
}

RawTensor Stream::finish_record(ir::ValueId id) {
  RawTensor t = pending_value(id);
  jit::counters().ops_recorded.fetch_add(1, std::memory_order_relaxed);
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
  jit::counters().ops_recorded.fetch_add(graph_.size() - mark, std::memory_order_relaxed);
  if (graph_.size() >= max_pending_ops()) flush_locked();
  return results;
}

std::optional<ir::Node> Stream::source_recipe(const RawTensor& t) {
  std::lock_guard lock(mutex_);
  const auto& v = t.value();
  if (v->node < 0 || v->device != device_) return std::nullopt;
  const ir::Node& n = graph_.node(v->node);
  bool source = n.op == ir::OpKind::Full || n.op == ir::OpKind::Iota || n.op == ir::OpKind::Random;
  if (!source) return std::nullopt;
  return n;
}

RawTensor Stream::wrap(runtime::Array array) {
  auto v = std::make_shared<LazyValue>();
  v->device = device_;
  v->type = array.type;
  v->array = std::move(array);
  return RawTensor(std::move(v));
}

void Stream::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

void Stream::flush_locked() {
  std::vector<std::shared_ptr<LazyValue>> live;
  std::vector<ir::ValueId> outputs;
  for (auto& w : pending_) {
    if (auto v = w.lock(); v && v->node >= 0) {
      outputs.push_back(v->node);
      live.push_back(std::move(v));
    }
  }
  if (!live.empty()) {
    // When every pending node is needed (a chain of ops), the graph moves instead of being
    // copied node by node; it moves back if execution throws, so pending values stay intact.
    const bool whole = graph_.all_needed_by(outputs);
    const int recorded = graph_.size();
    ir::Graph g = whole ? std::move(graph_) : graph_.prune(outputs);
    if (whole) graph_.reserve(recorded);
    std::vector<jit::Outcome> results;
    try {
      results = jit::execute(g, outputs, inputs_, backend_for(device_));
    } catch (...) {
      if (whole) graph_ = std::move(g);
      throw;
    }
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
}

const runtime::Array& Stream::materialize(const RawTensor& t) {
  std::lock_guard lock(mutex_);
  const auto& v = t.value();
  if (v->node >= 0) flush_locked();
  if (!v->error.empty()) throw Error(v->error);
  return *v->array;
}

}  // namespace ember::detail
