#pragma once
// Runs a flushed graph on a backend. Today every primitive is its own launch (the reference
// path); the fusion planner slots in here.
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

// `inputs[slot]` binds the graph's Input nodes. Values are released as soon as their last
// consumer has run. An error in one node (an index out of range) fails only the outputs that
// depend on it.
std::vector<Outcome> execute(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                             std::span<const runtime::Array> inputs, runtime::Backend& backend);

}  // namespace ember::jit
