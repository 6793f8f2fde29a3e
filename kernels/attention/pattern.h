#pragma once
// Attention written by hand: matmul(softmax(matmul(q, k^T) * scale), v) over [B, H, S, D], as a
// user records it with frontend ops (activation::softmax's exp of the shifted scores times the
// sum's reciprocal, casts around the scores allowed). Where the device runs attention as one
// fused kernel, the attention family replaces such a chain by the primitive before planning, so
// hand-written attention fuses too.
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace ember::jit {

struct AttentionMatch {
  ir::ValueId q, k, v;  // k as [B, H, Sk, D] (the operand of the transpose)
  double scale;
  std::vector<ir::ValueId> interior;  // the chain's other nodes, read by nothing else
};

// The chain ending at matmul `out`, or none. `uses[v]`: how many nodes read v, plus one if v is
// a flush output (interior nodes must have no reader outside the chain).
std::optional<AttentionMatch> match_attention(const ir::Graph& g, ir::ValueId out,
                                              const std::vector<int>& uses);

// Reader counts of every value of g (outputs count as readers).
std::vector<int> use_counts(const ir::Graph& g, const std::vector<ir::ValueId>& outputs);

}  // namespace ember::jit
