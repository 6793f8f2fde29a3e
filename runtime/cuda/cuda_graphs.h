#pragma once
// Replays launch sequences as CUDA graphs. A cached plan launches the same kernels each time it
// runs, with maybe other buffers (the caching allocator hands out a few recurring addresses),
// scalars or grids: its first replay instantiates a graph, later ones launch it again (exact
// match) or patch only the nodes whose arguments changed. A few graphs are kept per key, so
// steps alternating between buffer sets (double-buffered parameters) replay without patching.
#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cuda/cuda_api.h"
#include "runtime/cuda/graph_order.h"

namespace ember::runtime::cuda {

// A tensor map argument (compared by its bytes: a graph node is patched when one changes).
struct TensorMapArg {
  CUtensorMap map;
  bool operator==(const TensorMapArg& o) const {
    return std::memcmp(&map, &o.map, sizeof(map)) == 0;
  }
};

// One kernel launch with its argument values, or another library's work (`external`, a
// collective) over `buffers`.
struct KernelCall {
  CUfunction function = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block = 1;
  uint32_t shared = 0;                    // dynamic shared memory bytes
  std::vector<uint32_t> params;           // the kernel's Params struct, word by word
  std::vector<CUdeviceptr> buffers;       // then one pointer argument per binding
  std::vector<uint64_t> capacities;       // per binding: its allocation's bytes
  std::vector<char> writes;               // per binding: whether the call writes it
  const char* name = "";                  // the kernel's, for EMBER_LOG=graphs (not compared)
  std::vector<TensorMapArg> tensor_maps;  // then one argument per map, by value
  bool is_external = false;
  bool whole_grid = false;    // the kernel synchronises its grid: nothing may run beside it
  uint64_t external_key = 0;  // external->key(): what equality compares of it
  // The work itself, while the call is being launched or captured; a kept graph's calls drop it
  // (it holds the buffers, which would otherwise never return to the allocator, and no later
  // step could then match the graph's pointers).
  std::shared_ptr<const ExternalWork> external;
  // What a kept graph's external work needs alive (external->owner()): a communicator destroyed
  // under a graph holding NCCL's captured work hung the process at exit on 2x H100.
  std::shared_ptr<const void> owner;

  bool operator==(const KernelCall& o) const {
    return function == o.function && std::equal(grid, grid + 3, o.grid) && block == o.block &&
           shared == o.shared && params == o.params && buffers == o.buffers &&
           capacities == o.capacities && writes == o.writes && tensor_maps == o.tensor_maps &&
           is_external == o.is_external && external_key == o.external_key;
  }
};

// cuLaunchKernel of one call on `stream`.
void launch_call(const Driver& d, const KernelCall& call, CUstream stream);

struct GraphStats {
  int64_t built = 0;    // graphs instantiated
  int64_t patched = 0;  // kernel nodes whose arguments were rewritten before a replay
};

// Captures external work (a collective) alone into a graph, on a stream of its own, so that
// it becomes a child node of a sequence's graph.
class ExternalCapture {
 public:
  explicit ExternalCapture(const Driver* d) : d_(d) {}
  ExternalCapture(const ExternalCapture&) = delete;
  ExternalCapture& operator=(const ExternalCapture&) = delete;
  // The graph of `call`'s external work (the caller destroys it).
  CUgraph capture(const KernelCall& call);

 private:
  const Driver* d_;
  CUstream stream_ = nullptr;  // goes with the context
};

class GraphCache {
 public:
  explicit GraphCache(const Driver* d) : d_(d), capture_(d) {}
  ~GraphCache();
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  // Submits `calls` to `stream` as one graph launch. Throws ember::Error when the driver
  // refuses to build or launch the graph (nothing was launched then). The caller tells external
  // work it was launched (ExternalWork::launched).
  void launch(uint64_t key, const std::vector<KernelCall>& calls, CUstream stream);
  const GraphStats& stats() const { return stats_; }

 private:
  struct Entry {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::vector<CUgraphNode> nodes;
    std::vector<KernelCall> calls;  // what each node launches now
    std::vector<char> joins;        // per call: waits for the external work before it (joins())
    // Per call: the calls it waits for (graph_dependencies); empty for a graph built as a
    // chain (with external work, or EMBER_CUDA_CONCURRENT=0).
    std::vector<std::vector<int>> deps;
    uint64_t last_use = 0;
  };
  Entry& entry_for(uint64_t key, const std::vector<KernelCall>& calls);
  // `deps`: the calls' dependencies when by conflicts (call_dependencies), else empty.
  Entry build(const std::vector<KernelCall>& calls, std::vector<std::vector<int>> deps);
  // Whether e can become `calls` by rewriting nodes: the same kinds of call in the same places,
  // waiting for the same external work or, by conflicts, for the same calls (`deps`).
  bool patchable(const Entry& e, const std::vector<KernelCall>& calls,
                 const std::vector<std::vector<int>>& deps) const;
  void patch(Entry& e, const std::vector<KernelCall>& calls);
  void destroy(Entry& e);
  void clear();

  const Driver* d_;
  ExternalCapture capture_;
  std::unordered_map<uint64_t, std::vector<Entry>> entries_;
  size_t count_ = 0;  // entries over all keys
  uint64_t clock_ = 0;
  GraphStats stats_;
};

}  // namespace ember::runtime::cuda
