#pragma once
// Segmentation and fusion: which values of a flushed graph are stored to memory, and which kernel
// computes each of them. Everything not stored is recomputed inline, at the index where a kernel
// needs it (views are index arithmetic, elementwise chains are expressions).
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/kernel_plan.h"
#include "kernels/registry.h"

namespace ember::jit {

// Explicit recompute-versus-store thresholds. An elementwise value with several consumers is
// recomputed by each of them while its expression stays small (cheap ALU work beats a round
// trip through memory on every device Ember targets), and stored once it is larger.
inline constexpr int kMaxRecomputeOps = 12;
// An inline expression grows to at most this many primitives before its value is stored: a
// kernel's expression (and the emitter's recursion through it) stays bounded however long a
// chain of elementwise ops a flush holds (20000 pending ops of one chain made a single kernel,
// whose lowering overflowed the stack and whose C++ took minutes to compile).
inline constexpr int kMaxInlineOps = 256;
// Operands of families that reread them (matmul, sort, scatter: Family::rereads_operands) are
// read many times per output element, so anything more than index arithmetic (views, casts,
// constants) feeding them is stored first.

// The index space of a planned kernel in graph g: what `shape` holds, recomputed for a graph of
// the same structure and other sizes (a plan-cache hit).
Shape index_space(const ir::Graph& g, const KernelPlan& kp);

// Which kernels compute what, each kernel of a family (kernels/registry.h) with no variant yet
// (the freeze stage chooses them). fusion=false: every primitive is its own kernel (the
// EMBER_FUSION=0 baseline).
// A fused kernel reads and writes at most `max_bindings` stored values (the device's limit,
// Backend::max_bindings): a value that would take a kernel past it starts another.
// `families`: the device's (kernels/registry.h).
Plan make_plan(const ir::Graph& g, const std::vector<ir::ValueId>& outputs, bool fusion,
               int max_bindings = 1 << 20, FamilySet families = jit::families());
// The plan as text: each kernel's family, index space, values and variant (EMBER_DUMP=plan).
std::string print_plan(const ir::Graph& g, const Plan& p);

}  // namespace ember::jit
