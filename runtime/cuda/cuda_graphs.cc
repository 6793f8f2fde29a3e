#include "runtime/cuda/cuda_graphs.h"

#include <algorithm>

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

}  // namespace

void launch_call(const Driver& d, const KernelCall& c, CUstream stream) {
  std::vector<void*> args;
  CUDA_KERNEL_NODE_PARAMS p = node_params(c, args);
  check(d.cuLaunchKernel(p.func, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, 1, 1,
                         p.sharedMemBytes, stream, p.kernelParams, nullptr),
        "cuLaunchKernel");
}

GraphCache::~GraphCache() { clear(); }

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
  if (lru != nullptr && list.size() >= kGraphsPerKey) {
    patch(*lru, calls);
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
  fresh.push_back(build(calls));
  ++count_;
  return fresh.back();
}

// Kernel nodes in a chain (each waits for the previous one, as on the stream).
GraphCache::Entry GraphCache::build(const std::vector<KernelCall>& calls) {
  Entry e;
  std::vector<void*> args;
  try {
    check(d_->cuGraphCreate(&e.graph, 0), "cuGraphCreate");
    for (const KernelCall& c : calls) {
      CUDA_KERNEL_NODE_PARAMS p = node_params(c, args);
      CUgraphNode node = nullptr;
      CUgraphNode* deps = e.nodes.empty() ? nullptr : &e.nodes.back();
      check(d_->cuGraphAddKernelNode(&node, e.graph, deps, deps ? 1 : 0, &p),
            "cuGraphAddKernelNode");
      e.nodes.push_back(node);
    }
    check(d_->cuGraphInstantiate(&e.exec, e.graph, 0), "cuGraphInstantiate");
  } catch (...) {
    destroy(e);
    throw;
  }
  e.calls = calls;
  ++stats_.built;
  return e;
}

void GraphCache::patch(Entry& e, const std::vector<KernelCall>& calls) {
  std::vector<void*> args;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (e.calls[i] == calls[i]) continue;
    CUDA_KERNEL_NODE_PARAMS p = node_params(calls[i], args);
    check(d_->cuGraphExecKernelNodeSetParams(e.exec, e.nodes[i], &p),
          "cuGraphExecKernelNodeSetParams");
    e.calls[i] = calls[i];
    ++stats_.patched;
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
