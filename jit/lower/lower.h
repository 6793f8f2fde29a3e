#pragma once
// The lowering stage: one kernel of a frozen plan (its family and variant decided) to a kernel
// description, which only compiling reads, plus what launching it needs.
#include <vector>

#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"
#include "runtime/backend.h"

namespace ember::jit {

// What launching a lowered kernel needs: everything but the kernel body. A cached plan keeps
// these and the compiled kernels, not the descriptions.
struct LaunchSpec {
  std::string name;
  uint32_t workgroup_size = 0;
  bool uses_errors = false;           // binds an error buffer after its own bindings
  std::vector<ir::ValueId> bindings;  // tensor bindings in order
  std::vector<bool> writes;
  std::vector<uint32_t> params;
  std::vector<runtime::TiledView> tiled_views;  // the copy engine's views, bindings by index
  std::vector<ErrorSite> error_sites;
  std::vector<ScalarPatch> scalar_patches;  // params holding runtime scalars of the graph
  uint64_t work_items = 0;                  // grid-stride loops cover this many threads or rows
  bool per_row = false;  // work_items counts workgroups (rows/tiles), not threads
  int fused_nodes = 0;   // primitives evaluated inside the kernel
  bool mma = false;      // a tensor-core matmul
  // Inputs every thread reads only at the element it writes (pointwise kernels): an output of
  // the same size may take such an input's buffer when the input dies here.
  std::vector<ir::ValueId> in_place_candidates;
  uint64_t elements = 0;  // of the index space: whether the CPU splits it over threads
  // The CPU target's host kernels: the node the backend runs as its primitive, or -1.
  ir::ValueId host_anchor = -1;
  // A collective (kernels/collective/family.h): its node, which the backend runs as external
  // work, or -1.
  ir::ValueId external_anchor = -1;
};

struct LoweredKernel {
  KernelDesc desc;
  LaunchSpec launch;
};

// Kernel `kernel` of `plan` as its family lowers it with its frozen variant; `layout` gives every
// stored value's layout at launch (flush inputs as given, computed values contiguous).
LoweredKernel lower_kernel(const ir::Graph& g, const Plan& plan, int kernel,
                           const Emitter::LayoutFn& layout);

// This flush's launches after reusing an earlier lowering: the scalar words rewritten from g.
void patch_scalars(const ir::Graph& g, LaunchSpec& spec);

}  // namespace ember::jit
