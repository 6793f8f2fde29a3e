#pragma once
// Runs a flushed graph on a backend. Today every primitive is its own launch (the reference
// path); the fusion planner slots in here.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"

namespace ember::jit {

// One output of a flush: its array, or the error that prevented computing it.
struct Outcome {
  std::optional<runtime::Array> array;
  std::string error;
};

// Forgets cached plans (and the compiled kernels they hold) of every backend.
void clear_plan_cache();

// Prefixes a run-time error with the user op that recorded the failing primitive.
std::string labelled_error(const ir::Node& n, const std::string& message);

// What the recorder of a flush knows of it: which replay slot of its stream it takes, and
// whether its graph equals that slot's last flush node for node (ir::match_nodes) with the same
// outputs (a stream keeps a slot for each of its last few distinct flushes). The jit keeps, per
// slot, what the slot's last flush can reuse (jit/exec/plan_cache.h, ReplayMemo):
// a repeated flush reuses that flush's plan, plan key and lowered kernels without hashing,
// planning or lowering again, rewriting the scalar words only when a scalar changed. An eager
// step recorded the same way every time (a training loop's) pays one comparison per node instead.
struct FlushHints {
  uint64_t stream = 0;        // from new_stream_id(); 0: no replay
  bool same_graph = false;    // same nodes but maybe scalars, same outputs as the last flush
  bool same_scalars = false;  // and the same scalars too
};

// An id for a recording stream's replay slot, and its release when the stream goes.
uint64_t new_stream_id();
void release_stream(uint64_t stream);

// `inputs[slot]` binds the graph's Input nodes. Values are released as soon as their last
// consumer has run. An error in one node (an index out of range) fails only the outputs that
// depend on it.
std::vector<Outcome> execute(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                             std::span<const runtime::Array> inputs, runtime::Backend& backend,
                             const FlushHints& hints = {});

}  // namespace ember::jit
