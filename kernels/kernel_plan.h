#pragma once
// What the planner hands the kernel families: which values a flushed graph stores, and the kernels
// that compute them, each of one family running one of its variants.
#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace ember::jit {

class Family;

// A family's variant, in the family's own encoding (a matmul's template and tile, a row kernel's
// workgroup, a pointwise kernel's configuration); 0 until one is chosen.
using Variant = uint64_t;

struct KernelPlan {
  const Family* family = nullptr;
  Shape shape;                          // the index space (row kernels: the unreduced shape)
  int axis = -1;                        // row kernels: the reduced axis
  ir::ValueId anchor = -1;              // matmul / sort / scatter node
  std::vector<ir::ValueId> reductions;  // row kernels: computed in this order
  std::vector<ir::ValueId> outputs;     // values this kernel stores
  // Row kernels: reductions over all of the kernel's rows of a value per row (a loss's batch
  // mean), among `reductions`; and the shapes of their inputs and results, which values of the
  // kernel may then have besides the family's own epilogue shapes.
  std::vector<ir::ValueId> totals;
  std::vector<Shape> total_shapes;
  Variant variant = 0;  // chosen and frozen before lowering (jit/tune/freeze.h)
};

struct Plan {
  std::vector<KernelPlan> kernels;  // in launch order
  std::vector<char> stored;         // per value: lives in a buffer (inputs included)
  std::vector<int> producer;        // per value: kernel that computes it, -1 for inputs
};

}  // namespace ember::jit
