#include "ir/rewrite.h"

namespace ember::ir {

Graph rewrite(const Graph& g, std::vector<ValueId>& outputs, const RewriteRule& rule) {
  Graph out;
  Builder b(out);
  std::vector<ValueId> remap(g.size());
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
    for (ValueId v = first; v < out.size(); ++v) out.set_label(v, n.label);
  }
  for (ValueId& o : outputs) o = remap[o];
  if (out.all_needed_by(outputs)) return out;
  return out.prune(outputs);
}

}  // namespace ember::ir
