#include "ir/autodiff.h"

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "ir/vjp_cache.h"

namespace ember::ir {

bool carries_gradient(const Node& n) { return is_float(n.type.dtype); }

namespace {

// Values on a float path from a `wrt` value to `output`: the only ones worth a gradient.
std::vector<char> values_needing_gradients(const Graph& g, ValueId output,
                                           const std::vector<ValueId>& wrt) {
  std::vector<char> from_wrt(g.size(), 0);
  for (ValueId w : wrt) from_wrt[w] = carries_gradient(g.node(w));
  for (ValueId i = 0; i <= output; ++i) {
    if (from_wrt[i] || !carries_gradient(g.node(i))) continue;
    for (ValueId in : g.node(i).inputs) from_wrt[i] |= from_wrt[in];
  }
  std::vector<char> to_output(g.size(), 0);
  to_output[output] = 1;
  for (ValueId i = output; i >= 0; --i) {
    if (!to_output[i]) continue;
    for (ValueId in : g.node(i).inputs) to_output[in] = 1;
  }
  std::vector<char> needed(g.size(), 0);
  for (ValueId i = 0; i <= output; ++i) needed[i] = from_wrt[i] && to_output[i];
  return needed;
}

}  // namespace

std::vector<ValueId> reverse_mode(Graph& g, ValueId output, ValueId seed,
                                  const std::vector<ValueId>& wrt,
                                  const std::vector<ValueId>* values) {
  if (values != nullptr && static_cast<ValueId>(values->size()) <= output) {
    throw Error("backward: the value map does not cover the output");
  }
  if (g.type(seed) != g.type(output)) {
    throw Error(absl::StrCat("backward: seed ", g.type(seed).to_string(), " does not match output ",
                             g.type(output).to_string()));
  }
  std::vector<char> needed = values_needing_gradients(g, output, wrt);
  std::vector<ValueId> adjoint(output + 1, -1);
  adjoint[output] = seed;
  OpScope scope("backward");
  Builder b(g);
  for (ValueId i = output; i >= 0; --i) {
    if (adjoint[i] < 0 || !needed[i]) continue;
    ValueIds inputs = g.node(i).inputs;  // copied: appending moves the nodes
    VjpCache cache;                      // shared by this node's rules (attention's)
    for (int k = 0; k < static_cast<int>(inputs.size()); ++k) {
      ValueId in = inputs[k];
      if (!needed[in]) continue;
      ValueId contribution = vjp(b, i, k, adjoint[i], values, &cache);
      if (contribution < 0) continue;
      adjoint[in] =
          adjoint[in] < 0 ? contribution : b.binary(BinaryFn::Add, adjoint[in], contribution);
    }
  }
  std::vector<ValueId> grads;
  for (ValueId w : wrt) grads.push_back(w <= output && needed[w] ? adjoint[w] : -1);
  return grads;
}

const char* checkpointing_name(Checkpointing policy) {
  return policy == Checkpointing::save_all ? "save_all" : "balanced";
}

bool keeps_for_backward(const Node& n, Checkpointing policy) {
  if (n.op == OpKind::Input || policy == Checkpointing::save_all) return true;
  // A collective cannot be recomputed: every rank would have to take part again.
  return n.op == OpKind::Matmul || n.op == OpKind::Conv || n.op == OpKind::Reduce ||
         n.op == OpKind::Sort || n.op == OpKind::Collective || n.op == OpKind::Attention;
}

}  // namespace ember::ir
