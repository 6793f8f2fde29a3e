#include "ir/rewrite.h"

namespace ember::ir {

Graph rewrite(const Graph& g, std::vector<ValueId>& outputs, const RewriteRule& rule,
              std::vector<ValueId>* old_to_new) {
  Graph out;
  Builder b(out);
  std::vector<ValueId> remap(g.size());
  std::vector<char> was_replaced(g.size(), 0);
  ValueIds args;
  for (ValueId i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    if (n.op == OpKind::Input) {
      remap[i] = b.input(n.get<InputAttrs>().slot, n.type);
      continue;
    }
    args.clear();
    for (ValueId in : n.inputs) args.push_back(remap[in]);
    const ValueId first = out.size();
    std::optional<ValueId> replaced = rule(b, n, i, args, remap);
    if (!replaced) {
      remap[i] = b.replay(n, args);
      continue;
    }
    remap[i] = *replaced;
    was_replaced[i] = 1;
    for (ValueId v = first; v < out.size(); ++v) out.set_label(v, n.label);
  }
  for (ValueId& o : outputs) o = remap[o];
  std::vector<ValueId> pruned;
  const bool all = out.all_needed_by(outputs);
  if (!all) out = out.prune(outputs, &pruned);
  if (old_to_new != nullptr) {
    old_to_new->resize(static_cast<size_t>(g.size()));
    for (ValueId i = 0; i < g.size(); ++i) {
      (*old_to_new)[i] = was_replaced[i] ? kReplacedNode : all ? remap[i] : pruned[remap[i]];
    }
  }
  return out;
}

void compose_old_to_new(std::vector<ValueId>& map, const std::vector<ValueId>& step) {
  for (ValueId& v : map) {
    if (v >= 0) v = step[v];
  }
}

}  // namespace ember::ir
