#pragma once
// Lowers one kernel of a plan to a kernel description plus what launching it needs.
#include <vector>

#include "jit/emitter.h"

namespace ember::jit {

struct LoweredKernel {
  KernelDesc desc;
  std::vector<ir::ValueId> bindings;  // tensor bindings in order
  std::vector<bool> writes;
  std::vector<uint32_t> params;
  std::vector<ErrorSite> error_sites;
  std::vector<ScalarPatch> scalar_patches;  // params holding runtime scalars of the graph
  uint64_t work_items = 0;                  // grid-stride loops cover this many threads or rows
  bool per_row = false;  // work_items counts workgroups (rows/tiles), not threads
  int fused_nodes = 0;   // primitives evaluated inside the kernel
  bool mma = false;      // a tensor-core matmul
  // Inputs every thread reads only at the element it writes (pointwise kernels): an output of
  // the same size may take such an input's buffer when the input dies here.
  std::vector<ir::ValueId> in_place_candidates;
};

// Whether a row of this length is kept in registers by row kernels (a specialisation: the plan
// cache keys on it).
bool row_fits_registers(int64_t row_length);

// The per-thread output block edge (1, 2, 4 or 8) of the matmul template for an M x N output
// with `batch` matrices: a specialisation, so the plan cache keys on it.
int matmul_block(int64_t m, int64_t n, int64_t batch);

LoweredKernel lower_kernel(const ir::Graph& g, const Plan& plan, int kernel,
                           const Emitter::LayoutFn& layout);

}  // namespace ember::jit
