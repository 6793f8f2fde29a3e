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

// What a caller (a device's stream) keeps from one flush to the next: when a flush's graph
// equals the previous one node for node (ir::match_nodes) with the same outputs, that
// flush's plan, plan key and lowered kernels are reused without hashing, planning or lowering
// again; the scalar words are rewritten only when a scalar changed. An eager step recorded the
// same way every time (a training loop's) pays one comparison per node instead.
struct ReplayMemo {
  ReplayMemo();
  ~ReplayMemo();
  void forget();  // nothing to reuse
  // Set by the caller before each flush.
  bool same_graph = false;    // same nodes but maybe scalars, same outputs as the last flush
  bool same_scalars = false;  // and the same scalars too
  struct State;
  std::unique_ptr<State> state;  // what the last flush left to reuse; null: nothing
};

// `inputs[slot]` binds the graph's Input nodes. Values are released as soon as their last
// consumer has run. An error in one node (an index out of range) fails only the outputs that
// depend on it. `memo` (optional) carries what the next flush of the same graph can reuse.
std::vector<Outcome> execute(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                             std::span<const runtime::Array> inputs, runtime::Backend& backend,
                             ReplayMemo* memo = nullptr);

}  // namespace ember::jit
