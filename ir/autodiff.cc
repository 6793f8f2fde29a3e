#include "ir/autodiff.h"

#include <algorithm>

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

// The one axis a zero pad widens, with its offset and extent along it; false for another pad.
struct PaddedRange {
  int axis = -1;
  int64_t start = 0, size = 0;
};
bool padded_range(const Graph& g, ValueId v, PaddedRange* r) {
  const Node& n = g.node(v);
  if (n.op != OpKind::Pad) return false;
  const auto& a = n.get<PadAttrs>();
  if (a.value.as_double() != 0) return false;
  for (int d = 0; d < static_cast<int>(a.before.size()); ++d) {
    if (a.before[d] == 0 && a.after[d] == 0) continue;
    if (r->axis >= 0) return false;  // widened along two axes
    r->axis = d;
    r->start = a.before[d];
    r->size = g.type(n.inputs[0]).shape[d];
  }
  return r->axis >= 0;
}

// The gradients of slices that lie side by side along one axis (q, k and v cut from one packed
// projection) come back as zero pads; their sum is the slices' gradients concatenated, padded
// once. Added, every element would read every gradient through its own index arithmetic (on an
// H100, a [8, 1024, 2304] packed projection's three gradients summed at 281 GB/s); a
// concatenation shares the index arithmetic of its parts (0.124 ms there). -1 where a and c
// are not two such pads.
ValueId join_adjacent_pads(Builder& b, const Graph& g, ValueId a, ValueId c) {
  PaddedRange ra, rc;
  if (!padded_range(g, a, &ra) || !padded_range(g, c, &rc) || ra.axis != rc.axis) return -1;
  if (!(g.type(a) == g.type(c))) return -1;
  const bool c_first = rc.start + rc.size == ra.start;
  if (!c_first && ra.start + ra.size != rc.start) return -1;
  const int axis = ra.axis;
  std::vector<ValueId> parts;
  // A concatenation along the axis is spliced, not nested, up to the frontend's fan-in (its
  // kConcatFanIn): the planner cuts only concatenations of inline parts, and every part of a
  // concatenation is evaluated at each element.
  constexpr size_t kMostParts = 16;
  auto append = [&](ValueId pad) {
    ValueId x = g.node(pad).inputs[0];
    const Node& xn = g.node(x);
    if (xn.op == OpKind::Concat && xn.get<AxisAttrs>().axis == axis &&
        xn.inputs.size() < kMostParts) {
      parts.insert(parts.end(), xn.inputs.begin(), xn.inputs.end());
    } else {
      parts.push_back(x);
    }
  };
  append(c_first ? c : a);
  append(c_first ? a : c);
  ValueId joined = b.concat(parts, axis);
  const int64_t start = std::min(ra.start, rc.start);
  const int64_t full = g.type(a).shape[axis];
  const int64_t after = full - start - ra.size - rc.size;
  if (start == 0 && after == 0) return joined;
  const int rank = g.type(a).shape.rank();
  std::vector<int64_t> before_v(rank, 0), after_v(rank, 0);
  before_v[axis] = start;
  after_v[axis] = after;
  return b.pad(joined, before_v, after_v, Scalar::from_double(0));
}

// The adjoint of a value read twice: the sum of the two contributions.
ValueId accumulate(Builder& b, const Graph& g, ValueId a, ValueId c) {
  ValueId joined = join_adjacent_pads(b, g, a, c);
  return joined >= 0 ? joined : b.binary(BinaryFn::Add, a, c);
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
      adjoint[in] = adjoint[in] < 0 ? contribution : accumulate(b, g, adjoint[in], contribution);
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
         n.op == OpKind::Sort || n.op == OpKind::Collective || n.op == OpKind::Attention ||
         n.op == OpKind::Lstm;
}

}  // namespace ember::ir
