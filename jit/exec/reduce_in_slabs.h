#pragma once
// The CPU reference path runs one primitive at a time, so a reduction of a large pointwise
// expression ([8192,1] * [1,8192] then sum_dim) would first store the whole expression (256 MiB).
// Instead the expression and its reduction run together over slabs of a kept dimension, each
// slab's expression a few MiB at most, and the slab results are concatenated.
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"

namespace ember::jit {

// A reduction whose input is computed slab by slab: `nodes` are the pointwise nodes feeding it
// (ascending ids, only used by each other and the reduction), `dim` the dim the slabs cut.
struct SlabPlan {
  ir::ValueId reduce;
  std::vector<ir::ValueId> nodes;
  std::vector<ir::ValueId> leaves;  // the values outside `nodes` they read, once per edge
  int dim;
  int64_t rows_per_slab;
};

// The slab plans of `g` (none for a reduction of a small expression). `uses` counts each
// value's consumers, outputs counting one more.
std::vector<SlabPlan> plan_slabs(const ir::Graph& g, std::span<const int> uses);

// Runs plan `p`: `value(id)` gives the array of a value outside the plan (already computed).
runtime::Array run_slabs(const ir::Graph& g, const SlabPlan& p,
                         const std::function<const runtime::Array&(ir::ValueId)>& value,
                         runtime::Backend& backend);

}  // namespace ember::jit
