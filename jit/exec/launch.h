#pragma once
// The launch stage: buffers for a lowered, compiled plan's outputs (an intermediate dying in a
// pointwise kernel lends its buffer to an output), the launches (as one sequence where the
// backend replays those, a CUDA graph), then the kernels' run-time checks read back: a failing
// check fails the outputs computed from the op that failed it, and everything downstream.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "jit/exec/executor.h"
#include "jit/lower/lower.h"
#include "kernels/kernel_plan.h"

namespace ember::jit {

struct PlanLaunch {
  const Plan& plan;
  const std::vector<LaunchSpec>& launches;  // one per kernel of the plan
  const std::vector<std::shared_ptr<runtime::Kernel>>& kernels;
  // Hand the launches over as one sequence under this key (a cached plan's), 0: one by one.
  uint64_t sequence_key = 0;
};

// `arrays` holds the flush's inputs; the outputs' arrays are added. Returns the outcome of each
// of `outputs`.
std::vector<Outcome> launch_plan(const ir::Graph& g, const std::vector<ir::ValueId>& outputs,
                                 const PlanLaunch& p,
                                 std::vector<std::optional<runtime::Array>>& arrays,
                                 runtime::Backend& backend);

}  // namespace ember::jit
