#pragma once
// Graph-to-graph rewrites (the jit's splits of long reductions and of matmuls over K): copies a
// graph node by node, letting a rule replace chosen nodes by several new ones.
#include <functional>
#include <optional>
#include <vector>

#include "ir/builder.h"

namespace ember::ir {

// Given the builder of the new graph, an old node and its inputs' ids in the new graph, the id
// of the value replacing it, or nullopt to copy the node as it is. `remap` holds the new id of
// every earlier old node (a rule may read past its inputs).
using RewriteRule =
    std::function<std::optional<ValueId>(Builder& b, const Node& n, ValueId id,
                                         const ValueIds& args, const std::vector<ValueId>& remap)>;

// What became of each old node (`old_to_new`): its copy's id, kReplacedNode where a rule
// replaced it, or -1 where it was dropped.
inline constexpr ValueId kReplacedNode = -2;

// `g` rewritten by `rule`; `outputs` is rewritten to the new ids. Nodes a rule adds carry the
// replaced node's label (errors name the user's op). Nodes nothing reads any more (inputs a
// rule read past) are dropped. `old_to_new`, when given, receives what became of each node.
Graph rewrite(const Graph& g, std::vector<ValueId>& outputs, const RewriteRule& rule,
              std::vector<ValueId>* old_to_new = nullptr);

// Composes `step` (what a rewrite of the current graph made of its nodes) into `map` (what the
// rewrites so far made of the original graph's nodes).
void compose_old_to_new(std::vector<ValueId>& map, const std::vector<ValueId>& step);

}  // namespace ember::ir
