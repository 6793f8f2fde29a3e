#pragma once
// The SSA graph: node i defines value i. Nodes are appended in a topological order by
// construction (an input always refers to an earlier node).
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ops.h"
#include "ir/shape.h"

namespace ember::ir {

using ValueId = int32_t;

// A node's inputs, stored inline: most primitives take one to three.
using ValueIds = absl::InlinedVector<ValueId, 3>;

struct Node {
  OpKind op;
  ValueIds inputs;
  TensorType type;
  Attrs attrs;
  // The user-facing op that recorded this primitive (softmax, select, ...), or null: named in
  // errors raised while running it.
  const char* label = nullptr;

  template <class A>
  const A& get() const {
    return std::get<A>(attrs);
  }
};

class Graph {
 public:
  ValueId add(Node node);
  // Constructs the node in place (no move of a whole node per recorded op).
  ValueId add(OpKind op, ValueIds&& inputs, TensorType&& type, Attrs&& attrs, const char* label) {
    nodes_.emplace_back(op, std::move(inputs), std::move(type), std::move(attrs), label);
    return static_cast<ValueId>(nodes_.size() - 1);
  }
  const Node& node(ValueId id) const { return nodes_[id]; }
  const TensorType& type(ValueId id) const { return nodes_[id].type; }
  int size() const { return static_cast<int>(nodes_.size()); }
  const std::vector<Node>& nodes() const { return nodes_; }
  void clear() { nodes_.clear(); }
  // Room for `n` nodes: a stream whose graph moved out to execution re-grows it without
  // reallocating (and moving every node) several times per step.
  void reserve(int n) { nodes_.reserve(static_cast<size_t>(n)); }
  void set_label(ValueId id, const char* label) { nodes_[id].label = label; }
  // A replayed flush's scalars (fill values, seeds) in a graph kept from the flush before.
  void set_attrs(ValueId id, Attrs attrs) { nodes_[id].attrs = std::move(attrs); }

  // Keeps only the nodes that `outputs` depend on, renumbered densely in the original order.
  // Returns the new graph and rewrites `outputs` to the new ids; `old_to_new` (if given)
  // receives the mapping, -1 for dropped nodes.
  Graph prune(std::vector<ValueId>& outputs, std::vector<ValueId>* old_to_new = nullptr) const;
  // Whether every node is one of `outputs` or something they depend on (prune would keep all).
  bool all_needed_by(const std::vector<ValueId>& outputs) const;

 private:
  std::vector<Node> nodes_;
};

// The one text form of a graph, used by every dump: "%3 = binary.add(%1, %2) : f32[2, 3]".
std::string print_node(const Graph& g, ValueId id);
std::string print_graph(const Graph& g, const std::vector<ValueId>& outputs = {});

// Structural hash (xxHash3): ignores value ids, concrete sizes and runtime scalars (fill values,
// RNG seeds, slice starts) but keeps ops, ranks, dtypes, which dims are 1 and which dims are
// equal. Equal hashes mean one plan and one set of kernels serve both graphs.
uint64_t structural_hash(const Graph& g, const std::vector<ValueId>& outputs);

}  // namespace ember::ir
