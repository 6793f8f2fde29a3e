#include "frontend/detail/forward_flush.h"

#include <utility>

#include "absl/container/flat_hash_set.h"

namespace ember::detail {
namespace {

bool is_view(ir::OpKind op) {
  using ir::OpKind;
  return op == OpKind::Reshape || op == OpKind::Permute || op == OpKind::Expand ||
         op == OpKind::Slice || op == OpKind::Flip;
}

// The node whose value a product operand reads: views that nothing holds looked through.
const TapeNode* viewed(const TapeNode* in) {
  while (is_view(in->prim.op) && !in->inputs.empty() && !in->saved.defined() && in->value.expired())
    in = in->inputs.front().get();
  return in;
}

}  // namespace

std::vector<const TapeNode*> topological_order(const TapeNode* root) {
  std::vector<const TapeNode*> order;
  absl::flat_hash_set<const TapeNode*> seen{root};
  std::vector<std::pair<const TapeNode*, size_t>> stack{{root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->inputs.size()) {
      const TapeNode* in = node->inputs[next++].get();
      if (seen.insert(in).second) stack.push_back({in, 0});
      continue;
    }
    order.push_back(node);
    stack.pop_back();
  }
  return order;
}

int64_t recomputed_operand_bytes(const std::vector<const TapeNode*>& order) {
  using ir::OpKind;
  absl::flat_hash_set<const TapeNode*> counted;
  int64_t bytes = 0;
  for (const TapeNode* n : order) {
    const OpKind op = n->prim.op;
    if (op != OpKind::Matmul && op != OpKind::Conv && op != OpKind::Attention && op != OpKind::Lstm)
      continue;
    for (const auto& input : n->inputs) {
      // What BackwardGraph (frontend/backward.cc) reads instead of recomputing: leaves and
      // constants (Input nodes), and values kept on the tape or still held, except sources
      // (full, iota, random), which it always remakes.
      const TapeNode* in = viewed(input.get());
      if (in->prim.op == OpKind::Input) continue;
      const bool source = in->inputs.empty();
      if (!source && (in->saved.defined() || !in->value.expired())) continue;
      if (!counted.insert(in).second) continue;
      bytes += in->prim.type.shape.numel() * static_cast<int64_t>(dtype_size(in->prim.type.dtype));
    }
  }
  return bytes;
}

}  // namespace ember::detail
