#pragma once
// Whether backward() may start the recorded forward pass on the device before it builds the
// backward (frontend/backward.cc): the tape's order, and what a separate flush of the forward
// would make the backward recompute. Internal to the frontend.
#include <cstdint>
#include <vector>

#include "frontend/detail/tape.h"

namespace ember::detail {

// The nodes reachable from root, inputs before the nodes that read them (iterative: tapes can be
// long chains).
std::vector<const TapeNode*> topological_order(const TapeNode* root);

// Bytes of the product operands (matmul, convolution, attention inputs; views looked through)
// that the backward would recompute: sources (full, iota, random) and values neither kept on the
// tape (`saved`, as the checkpointing policy in force at record time chose) nor still held. In
// one flush the backward shares the copy the forward stored for its product; after the forward
// flushed alone it recomputes and stores each again. Each operand counted once.
int64_t recomputed_operand_bytes(const std::vector<const TapeNode*>& order);

// The most recomputed operand bytes that starting the forward early may cost: an MLP's hidden
// activations (16 MiB in mlp_train_step) are worth their extra pass; a transformer's attention
// probabilities (512 MiB in transformer_block: 25.3 ms a step against 23.3 in one flush, H200,
// session 27) are not.
inline constexpr int64_t kEarlyFlushRecomputeBytes = int64_t{64} << 20;

}  // namespace ember::detail
