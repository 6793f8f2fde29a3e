#include "ir/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/attrs.h"

namespace ember::ir {

ValueId Graph::add(Node node) {
  nodes_.push_back(std::move(node));
  return static_cast<ValueId>(nodes_.size() - 1);
}

namespace {

// Per node: whether `outputs` depend on it (or are it).
std::vector<char> live_nodes(const std::vector<Node>& nodes, const std::vector<ValueId>& outputs) {
  std::vector<char> live(nodes.size(), 0);
  for (ValueId o : outputs) live[o] = 1;
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    if (!live[i]) continue;
    for (ValueId in : nodes[i].inputs) live[in] = 1;
  }
  return live;
}

}  // namespace

bool Graph::all_needed_by(const std::vector<ValueId>& outputs) const {
  std::vector<char> live = live_nodes(nodes_, outputs);
  return std::all_of(live.begin(), live.end(), [](char l) { return l != 0; });
}

Graph Graph::prune(std::vector<ValueId>& outputs, std::vector<ValueId>* old_to_new) const {
  std::vector<char> live = live_nodes(nodes_, outputs);
  std::vector<ValueId> remap(nodes_.size(), -1);
  Graph out;
  for (int i = 0; i < size(); ++i) {
    if (!live[i]) continue;
    Node n = nodes_[i];
    for (ValueId& in : n.inputs) in = remap[in];
    remap[i] = out.add(std::move(n));
  }
  for (ValueId& o : outputs) o = remap[o];
  if (old_to_new) *old_to_new = std::move(remap);
  return out;
}

namespace {

std::string op_text(const Node& n) {
  std::string fn = attrs_fn_name(n.attrs);
  return fn.empty() ? op_name(n.op) : absl::StrCat(op_name(n.op), ".", fn);
}

}  // namespace

std::string print_node(const Graph& g, ValueId id) {
  const Node& n = g.node(id);
  std::string args = absl::StrJoin(
      n.inputs, ", ", [](std::string* out, ValueId v) { absl::StrAppend(out, "%", v); });
  std::string attrs = attrs_text(n.attrs);
  return absl::StrCat("%", id, " = ", op_text(n), "(", args, ")", attrs.empty() ? "" : " {", attrs,
                      attrs.empty() ? "" : "}", " : ", n.type.to_string());
}

std::string print_graph(const Graph& g, const std::vector<ValueId>& outputs) {
  std::string s;
  for (int i = 0; i < g.size(); ++i) absl::StrAppend(&s, print_node(g, i), "\n");
  if (!outputs.empty()) {
    absl::StrAppend(
        &s, "outputs: ",
        absl::StrJoin(outputs, ", ", [](std::string* o, ValueId v) { absl::StrAppend(o, "%", v); }),
        "\n");
  }
  return s;
}

}  // namespace ember::ir
