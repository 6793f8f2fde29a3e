#pragma once
// Reverse-mode differentiation and checkpointing policies as graph transforms. The backward pass
// is made of ordinary primitives appended to the graph, so the jit plans, fuses and caches it like
// any forward computation.
#include <cstdint>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"

namespace ember::ir {

// Whether gradients flow through a value: only float values carry them (an argmax, a comparison
// or a cast to int stops them).
bool carries_gradient(const Node& n);

// Appends the nodes computing the vector-Jacobian product of `output` with `seed` (a value of
// output's type) for every value in `wrt`, and returns their ids: -1 for a value `output` does
// not depend on through float values. Contributions from several uses of a value are summed.
// The gradient rules read forward values through `values` when given: values[v] is the node
// holding v's value (a kept copy, or a recomputation from kept copies); by default v itself.
// The graph's structure is what is differentiated; `values` decides what backward reads.
std::vector<ValueId> reverse_mode(Graph& g, ValueId output, ValueId seed,
                                  const std::vector<ValueId>& wrt,
                                  const std::vector<ValueId>* values = nullptr);

// The gradient contribution of node `id` to its input number `input`, given the gradient `grad`
// of its output; -1 when none flows. Reads forward values (the node's inputs and output) through
// `values` as above.
ValueId vjp(Builder& b, ValueId id, int input, ValueId grad, const std::vector<ValueId>* values);

// Which forward values the backward pass keeps and which it recomputes.
enum class Checkpointing : uint8_t {
  save_all,  // keep every value backward reads
  balanced,  // keep outputs of compute-bound ops (matmul, reductions, sort); recompute
             // memory-bound chains inside the backward kernels
};
const char* checkpointing_name(Checkpointing policy);

// Whether `n`'s value is kept for the backward pass under `policy`. Inputs (leaves and
// constants) are always kept: they cannot be recomputed.
bool keeps_for_backward(const Node& n, Checkpointing policy);

}  // namespace ember::ir
