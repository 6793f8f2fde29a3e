#include "runtime/cuda/cuda_graphs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ir/error.h"

namespace ember::runtime::cuda {
namespace {

// Graphs kept per key (recurring buffer sets of one plan) and over all keys; past the total
// every graph is dropped (a process cycling through that many step shapes gains little).
constexpr size_t kGraphsPerKey = 4;
constexpr size_t kMaxGraphs = 1024;

// The driver's view of a call; `args` receives the argument pointers it refers to.
CUDA_KERNEL_NODE_PARAMS node_params(const KernelCall& c, std::vector<void*>& args) {
  args.clear();
  args.push_back(const_cast<uint32_t*>(c.params.data()));
  for (const CUdeviceptr& p : c.buffers) args.push_back(const_cast<CUdeviceptr*>(&p));
  for (const TensorMapArg& m : c.tensor_maps) args.push_back(const_cast<CUtensorMap*>(&m.map));
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = c.function;
  p.gridDimX = c.grid[0];
  p.gridDimY = c.grid[1];
  p.gridDimZ = c.grid[2];
  p.blockDimX = c.block;
  p.blockDimY = 1;
  p.blockDimZ = 1;
  p.sharedMemBytes = c.shared;
  p.kernelParams = args.data();
  return p;
}

// EMBER_LOG=graphs: a line per graph built and per graph patched (how often a step's buffers
// change its graph, and how many nodes it rewrites each time).
bool log_graphs() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_LOG");
    return env != nullptr && std::strstr(env, "graphs") != nullptr;
  }();
  return on;
}

// EMBER_CUDA_CONCURRENT=0: graphs keep the stream's order (a chain), the A/B baseline for
// graphs whose kernels wait only for those they conflict with.
bool concurrent() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_CUDA_CONCURRENT");
    return env == nullptr || std::strcmp(env, "0") != 0;
  }();
  return on;
}

bool has_external(const std::vector<KernelCall>& calls) {
  return std::any_of(calls.begin(), calls.end(), [](const KernelCall& c) { return c.is_external; });
}

// What a kept graph remembers of its calls: everything but the external work itself.
std::vector<KernelCall> kept(const std::vector<KernelCall>& calls) {
  std::vector<KernelCall> out = calls;
  for (KernelCall& c : out) {
    if (c.external) c.owner = c.external->owner();
    c.external.reset();
    c.name = "";  // the kernel's string may not outlive the graph; logs read fresh calls only
  }
  return out;
}

// EMBER_LOG=graphs: a graph built, and with waits by conflict, each call's kernel and the
// calls it waits for (what may run side by side).
void log_built(const std::vector<KernelCall>& calls, const std::vector<std::vector<int>>& deps,
               int64_t built) {
  const auto externals = std::count_if(calls.begin(), calls.end(),
                                       [](const KernelCall& c) { return c.external != nullptr; });
  std::fprintf(stderr,
               "ember: cuda: graph %lld built: %zu calls (numbered from the graph's first), %lld "
               "external%s\n",
               static_cast<long long>(built), calls.size(), static_cast<long long>(externals),
               deps.empty() ? ", a chain" : "");
  for (size_t i = 0; i < deps.size(); ++i) {
    std::string waits;
    for (int j : deps[i]) waits += " " + std::to_string(j);
    std::fprintf(stderr, "ember: cuda:   %zu %s <-%s\n", i, calls[i].name, waits.c_str());
  }
}

// The calls each call waits for: by the memory they touch (graph_order.h).
std::vector<std::vector<int>> call_dependencies(const std::vector<KernelCall>& calls) {
  std::vector<std::vector<BufferAccess>> accesses(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const KernelCall& c = calls[i];
    for (size_t b = 0; b < c.buffers.size(); ++b)
      accesses[i].push_back({c.buffers[b], c.capacities[b], c.writes[b] != 0});
  }
  return graph_dependencies(accesses);
}

// Graphs over kernels only wait by conflicts; with external work they stay a chain beside it,
// and so do graphs with a kernel that synchronises its grid: two of them side by side (the two
// directions of a bidirectional LSTM) could each hold part of the SMs and wait for the rest.
bool by_conflicts(const std::vector<KernelCall>& calls) {
  const bool whole_grid =
      std::any_of(calls.begin(), calls.end(), [](const KernelCall& c) { return c.whole_grid; });
  return concurrent() && !has_external(calls) && !whole_grid;
}

}  // namespace

void launch_call(const Driver& d, const KernelCall& c, CUstream stream) {
  if (c.external) {
    c.external->enqueue(stream, /*captured=*/false);
    return;
  }
  std::vector<void*> args;
  CUDA_KERNEL_NODE_PARAMS p = node_params(c, args);
  check(d.cuLaunchKernel(p.func, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, 1, 1,
                         p.sharedMemBytes, stream, p.kernelParams, nullptr),
        "cuLaunchKernel");
}

GraphCache::~GraphCache() { clear(); }

// Per call: whether a kernel must wait for the external work before it (it touches a buffer
// that work reads or writes); the rest of the kernels run while that work does. External work
// runs in order, so waiting for the latest waits for all of it.
std::vector<char> joins(const std::vector<KernelCall>& calls) {
  std::vector<char> out(calls.size(), 0);
  std::vector<CUdeviceptr> side;  // buffers of external work not waited for yet
  for (size_t i = 0; i < calls.size(); ++i) {
    const KernelCall& c = calls[i];
    if (c.is_external) {
      side.insert(side.end(), c.buffers.begin(), c.buffers.end());
      continue;
    }
    out[i] = std::any_of(c.buffers.begin(), c.buffers.end(), [&](CUdeviceptr p) {
      return std::find(side.begin(), side.end(), p) != side.end();
    });
    if (out[i]) side.clear();
  }
  return out;
}

CUgraph ExternalCapture::capture(const KernelCall& call) {
  if (stream_ == nullptr)
    check(d_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  // Relaxed: NCCL may make calls while capturing that the stricter modes refuse.
  check(d_->cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
  try {
    call.external->enqueue(stream_, /*captured=*/true);
  } catch (...) {
    CUgraph broken = nullptr;
    d_->cuStreamEndCapture(stream_, &broken);
    if (broken != nullptr) d_->cuGraphDestroy(broken);
    throw;
  }
  CUgraph graph = nullptr;
  check(d_->cuStreamEndCapture(stream_, &graph), "cuStreamEndCapture");
  return graph;
}

void GraphCache::launch(uint64_t key, const std::vector<KernelCall>& calls, CUstream stream) {
  Entry& e = entry_for(key, calls);
  e.last_use = ++clock_;
  check(d_->cuGraphLaunch(e.exec, stream), "cuGraphLaunch");
}

// The kept graph launching exactly `calls`; else the least recently used one of the same length,
// patched, while the key has its share of graphs; else a new one.
GraphCache::Entry& GraphCache::entry_for(uint64_t key, const std::vector<KernelCall>& calls) {
  std::vector<Entry>& list = entries_[key];
  for (Entry& e : list) {
    if (e.calls == calls) return e;
  }
  Entry* lru = nullptr;
  for (Entry& e : list) {
    if (e.calls.size() == calls.size() && (lru == nullptr || e.last_use < lru->last_use)) lru = &e;
  }
  // Computed once for the patch test and the build.
  std::vector<std::vector<int>> deps;
  if (by_conflicts(calls)) deps = call_dependencies(calls);
  if (lru != nullptr && list.size() >= kGraphsPerKey) {
    if (patchable(*lru, calls, deps)) {
      try {
        patch(*lru, calls);
        return *lru;
      } catch (const Error&) {
        // A collective captured again whose graph the driver will not swap in: build anew.
      }
    }
    Entry fresh = build(calls, std::move(deps));
    destroy(*lru);
    *lru = std::move(fresh);
    return *lru;
  }
  if (count_ >= kMaxGraphs) clear();
  std::vector<Entry>& fresh = entries_[key];
  if (fresh.size() >= kGraphsPerKey) {  // all of other lengths: drop the oldest
    auto oldest = std::min_element(fresh.begin(), fresh.end(), [](const Entry& a, const Entry& b) {
      return a.last_use < b.last_use;
    });
    destroy(*oldest);
    fresh.erase(oldest);
    --count_;
  }
  fresh.push_back(build(calls, std::move(deps)));
  ++count_;
  return fresh.back();
}

// Kernel nodes, each waiting for the earlier ones it conflicts with (graph_order.h); with
// external work, in a chain (each waits for the previous one, as on the stream) and the work
// as child graphs beside it, each after the kernel before it and the external work before
// that, joined by the first later kernel that touches its buffers (or by the graph's end).
GraphCache::Entry GraphCache::build(const std::vector<KernelCall>& calls,
                                    std::vector<std::vector<int>> deps) {
  Entry e;
  e.joins = joins(calls);
  e.deps = std::move(deps);
  std::vector<void*> args;
  CUgraphNode last_kernel = nullptr, last_external = nullptr;
  try {
    check(d_->cuGraphCreate(&e.graph, 0), "cuGraphCreate");
    for (size_t i = 0; i < calls.size(); ++i) {
      const KernelCall& c = calls[i];
      std::vector<CUgraphNode> deps;
      if (!e.deps.empty()) {
        for (int j : e.deps[i]) deps.push_back(e.nodes[static_cast<size_t>(j)]);
      } else if (last_kernel != nullptr) {
        deps.push_back(last_kernel);
      }
      CUgraphNode node = nullptr;
      if (c.is_external) {
        if (last_external != nullptr) deps.push_back(last_external);
        CUgraph child = capture_.capture(c);
        CUresult r = d_->cuGraphAddChildGraphNode(&node, e.graph, deps.data(), deps.size(), child);
        d_->cuGraphDestroy(child);  // the node holds a copy
        check(r, "cuGraphAddChildGraphNode");
        last_external = node;
      } else {
        if (e.joins[i]) deps.push_back(last_external);
        CUDA_KERNEL_NODE_PARAMS p = node_params(c, args);
        check(d_->cuGraphAddKernelNode(&node, e.graph, deps.data(), deps.size(), &p),
              "cuGraphAddKernelNode");
        last_kernel = node;
      }
      e.nodes.push_back(node);
    }
    check(d_->cuGraphInstantiate(&e.exec, e.graph, 0), "cuGraphInstantiate");
  } catch (...) {
    destroy(e);
    throw;
  }
  e.calls = kept(calls);
  ++stats_.built;
  if (log_graphs()) log_built(calls, e.deps, stats_.built);
  return e;
}

bool GraphCache::patchable(const Entry& e, const std::vector<KernelCall>& calls,
                           const std::vector<std::vector<int>>& deps) const {
  if (e.calls.size() != calls.size()) return false;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (e.calls[i].is_external != calls[i].is_external) return false;
    if (calls[i].is_external && e.calls[i].external_key != calls[i].external_key) return false;
  }
  if (has_external(calls)) return joins(calls) == e.joins;
  // The nodes' edges stay: only calls that conflict as the graph's did may take their places.
  return e.deps == deps;
}

void GraphCache::patch(Entry& e, const std::vector<KernelCall>& calls) {
  const int64_t patched_before = stats_.patched;
  std::vector<void*> args;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (e.calls[i] == calls[i]) continue;
    if (calls[i].is_external) {
      // The same work over other buffers: captured again, in the node's place.
      CUgraph child = capture_.capture(calls[i]);
      CUresult r = d_->cuGraphExecChildGraphNodeSetParams(e.exec, e.nodes[i], child);
      d_->cuGraphDestroy(child);
      check(r, "cuGraphExecChildGraphNodeSetParams");
      e.calls[i] = kept({calls[i]})[0];
      ++stats_.patched;
      continue;
    }
    CUDA_KERNEL_NODE_PARAMS p = node_params(calls[i], args);
    check(d_->cuGraphExecKernelNodeSetParams(e.exec, e.nodes[i], &p),
          "cuGraphExecKernelNodeSetParams");
    e.calls[i] = calls[i];
    e.calls[i].name = "";
    ++stats_.patched;
  }
  if (log_graphs()) {
    std::fprintf(stderr, "ember: cuda: graph patched: %lld of %zu calls rewritten\n",
                 static_cast<long long>(stats_.patched - patched_before), calls.size());
  }
}

// An executable graph still running is freed by the driver when it completes.
void GraphCache::destroy(Entry& e) {
  if (e.exec != nullptr) d_->cuGraphExecDestroy(e.exec);
  if (e.graph != nullptr) d_->cuGraphDestroy(e.graph);
  e.exec = nullptr;
  e.graph = nullptr;
}

void GraphCache::clear() {
  for (auto& [key, list] : entries_) {
    for (Entry& e : list) destroy(e);
  }
  entries_.clear();
  count_ = 0;
}

}  // namespace ember::runtime::cuda
