#include "kernels/attention/pattern.h"

#include <cmath>

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::OpKind;
using ir::ValueId;

// Follows a chain backwards, recording every node it passes as interior.
class Walk {
 public:
  Walk(const ir::Graph& g, const std::vector<int>& uses) : g_(g), uses_(uses) {}

  const ir::Node& node(ValueId v) const { return g_.node(v); }
  // v through any casts between floating types.
  ValueId through_casts(ValueId v) {
    while (node(v).op == OpKind::Cast && is_float(g_.type(node(v).inputs[0]).dtype)) {
      take(v);
      v = node(v).inputs[0];
    }
    return v;
  }
  bool is_binary(ValueId v, BinaryFn fn) const {
    return node(v).op == OpKind::Binary && node(v).get<ir::BinaryAttrs>().fn == fn;
  }
  bool is_reduce(ValueId v, ir::ReduceFn fn, int axis) const {
    if (node(v).op != OpKind::Reduce) return false;
    const auto& a = node(v).get<ir::ReduceAttrs>();
    return a.fn == fn && a.axis == axis;
  }
  // The value of a constant of all-1 dims, or none.
  std::optional<double> scalar(ValueId v) const {
    const ir::Node& n = node(v);
    if (n.op != OpKind::Full) return std::nullopt;
    for (int64_t d : n.type.shape.dims) {
      if (d != 1) return std::nullopt;
    }
    return n.get<ir::FullAttrs>().value.as_double();
  }
  void take(ValueId v) {
    ok_ = ok_ && uses_[v] == 1;
    interior_.push_back(v);
  }
  bool ok() const { return ok_; }
  std::vector<ValueId>& interior() { return interior_; }

 private:
  const ir::Graph& g_;
  const std::vector<int>& uses_;
  bool ok_ = true;
  std::vector<ValueId> interior_;
};

}  // namespace

std::vector<int> use_counts(const ir::Graph& g, const std::vector<ValueId>& outputs) {
  std::vector<int> uses(g.size(), 0);
  for (ValueId v = 0; v < g.size(); ++v) {
    for (ValueId in : g.node(v).inputs) ++uses[in];
  }
  for (ValueId o : outputs) ++uses[o];
  return uses;
}

std::optional<AttentionMatch> match_attention(const ir::Graph& g, ValueId out,
                                              const std::vector<int>& uses) {
  const ir::Node& pv = g.node(out);
  if (pv.op != OpKind::Matmul || pv.type.shape.rank() != 4) return std::nullopt;
  Walk w(g, uses);
  // P = e * (1 / sum) or e / sum, over the last axis.
  ValueId p = w.through_casts(pv.inputs[0]);
  ValueId e = -1, sum = -1;
  if (w.is_binary(p, BinaryFn::Mul)) {
    for (int side = 0; side < 2 && e < 0; ++side) {
      ValueId r = w.node(p).inputs[1 - side];
      if (w.is_binary(r, BinaryFn::Div) && w.scalar(w.node(r).inputs[0]) == 1.0) {
        e = w.node(p).inputs[side];
        sum = w.node(r).inputs[1];
        w.take(r);
      }
    }
  } else if (w.is_binary(p, BinaryFn::Div)) {
    e = w.node(p).inputs[0];
    sum = w.node(p).inputs[1];
  }
  if (e < 0 || !w.is_reduce(sum, ir::ReduceFn::Sum, 3) || w.node(sum).inputs[0] != e) {
    return std::nullopt;
  }
  w.take(p);
  w.take(sum);
  // e = exp(s - max(s)), read by the sum and by P.
  const ir::Node& en = w.node(e);
  if (en.op != OpKind::Unary || en.get<ir::UnaryAttrs>().fn != ir::UnaryFn::Exp)
    return std::nullopt;
  if (uses[e] != 2) return std::nullopt;
  w.interior().push_back(e);
  ValueId shifted = en.inputs[0];
  if (!w.is_binary(shifted, BinaryFn::Sub)) return std::nullopt;
  w.take(shifted);
  ValueId s = w.node(shifted).inputs[0], mx = w.node(shifted).inputs[1];
  if (!w.is_reduce(mx, ir::ReduceFn::Max, 3) || w.node(mx).inputs[0] != s || uses[s] != 2) {
    return std::nullopt;
  }
  w.take(mx);
  w.interior().push_back(s);  // read twice, by the maximum and the shift (checked above)
  // From s down to the score product: float casts and at most one scaling (scores * c,
  // c * scores or scores / c), in any order; none, or no scaling, allowed.
  double scale = 1.0;
  bool scaled = false;
  ValueId scores = s;
  for (;;) {
    const ir::Node& n = w.node(scores);
    ValueId next = -1;
    if (n.op == OpKind::Cast && is_float(g.type(n.inputs[0]).dtype)) {
      next = n.inputs[0];
    } else if (!scaled &&
               (w.is_binary(scores, BinaryFn::Mul) || w.is_binary(scores, BinaryFn::Div))) {
      const bool div = w.is_binary(scores, BinaryFn::Div);
      if (auto c = w.scalar(n.inputs[1])) {
        scale = div ? 1.0 / *c : *c;
        next = n.inputs[0];
      } else if (auto c2 = w.scalar(n.inputs[0]); c2 && !div) {
        scale = *c2;
        next = n.inputs[1];
      }
      scaled = next >= 0;
    }
    if (next < 0) break;
    if (scores != s) w.take(scores);
    scores = next;
  }
  const ir::Node& qk = w.node(scores);
  if (qk.op != OpKind::Matmul) return std::nullopt;
  if (scores != s) w.take(scores);
  const ValueId kt = qk.inputs[1];
  const ir::Node& tn = w.node(kt);
  if (tn.op != OpKind::Permute || tn.get<ir::PermuteAttrs>().perm != std::vector<int>{0, 1, 3, 2}) {
    return std::nullopt;
  }
  w.take(kt);
  AttentionMatch m{qk.inputs[0], tn.inputs[0], pv.inputs[1], scale, std::move(w.interior())};
  const TensorType &tq = g.type(m.q), &tk = g.type(m.k), &tv = g.type(m.v);
  const bool shapes = tq.shape.rank() == 4 && tk.shape.rank() == 4 && tv.shape.rank() == 4 &&
                      tk.shape == Shape({tq.shape[0], tq.shape[1], tk.shape[2], tq.shape[3]}) &&
                      tv.shape == Shape({tq.shape[0], tq.shape[1], tk.shape[2], tv.shape[3]});
  const bool types = tq.dtype == tk.dtype && tq.dtype == tv.dtype && pv.type.dtype == tq.dtype;
  if (!w.ok() || !shapes || !types || !std::isfinite(scale)) return std::nullopt;
  return m;
}

}  // namespace ember::jit
