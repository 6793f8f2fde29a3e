#pragma once
// Times the variants of one kernel of a plan on the device and returns the winner (its family's
// tune(), which records it in the autotune store, so that choosing again picks it).
#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"
#include "runtime/backend.h"

namespace ember::jit {

// Kernel k with each candidate variant, on scratch buffers for everything but the flush's inputs
// (random values in [-1, 1]; integers 1 to 4); a candidate whose result differs from the
// current variant's is discarded. Returns plan.kernels[k].variant when the kernel checks its
// inputs at run time (gather indices, integer division): random inputs would fail those
// checks, so such kernels keep their variant and report `tunable` false.
// The kernel descriptions of kernel k's tuning candidates (what tune_kernel would compile), from
// a scan of its family's tuner that times and records nothing; empty for a kernel that cannot
// be tuned.
std::vector<KernelDesc> tuning_candidates(const ir::Graph& g, const Plan& plan, int k,
                                          const Emitter::LayoutFn& layout,
                                          runtime::Backend& backend);

Variant tune_kernel(const ir::Graph& g, const Plan& plan, int k, const Emitter::LayoutFn& layout,
                    runtime::Backend& backend, bool* tunable);

}  // namespace ember::jit
