#pragma once
// Attention (OpKind::Attention) written as other primitives: the forward where no fused kernel
// runs (kernels/attention rewrites the node into it before planning) and the vector-Jacobian
// products. Scores are normalised in f32 (f64 for f64 operands); a query that sees no key gives
// zeros. Key/value heads are repeated for their group of query heads, and their gradients summed
// back over the group.
#include <limits>
#include <vector>

#include "ir/builder.h"

namespace ember::ir::attention_compose {

inline Shape ones4() { return Shape{1, 1, 1, 1}; }

inline DType score_dtype(DType t) { return t == DType::F64 ? DType::F64 : DType::F32; }

// [B, Hk, S, D] -> [B, H, S, D], each head repeated for its H / Hk query heads.
inline ValueId repeat_heads(Builder& b, ValueId x, int64_t heads) {
  const Shape s = b.type(x).shape;
  if (s[1] == heads) return x;
  const int64_t group = heads / s[1];
  ValueId r = b.reshape(x, Shape{s[0], s[1], 1, s[2], s[3]});
  r = b.expand(r, Shape{s[0], s[1], group, s[2], s[3]});
  return b.reshape(r, Shape{s[0], heads, s[2], s[3]});
}

// [B, H, S, D] -> [B, Hk, S, D], summing each group of H / Hk heads.
inline ValueId sum_groups(Builder& b, ValueId x, int64_t kv_heads) {
  const Shape s = b.type(x).shape;
  if (s[1] == kv_heads) return x;
  ValueId r = b.reshape(x, Shape{s[0], kv_heads, s[1] / kv_heads, s[2], s[3]});
  r = b.reduce(ReduceFn::Sum, r, 2);
  return b.reshape(r, Shape{s[0], kv_heads, s[2], s[3]});
}

inline ValueId transpose_last(Builder& b, ValueId x) { return b.permute(x, {0, 1, 3, 2}); }

// The masked, scaled scores in score_dtype, [B, H, Sq, Sk] (hidden keys -inf).
inline ValueId scores(Builder& b, ValueId q, ValueId k, const AttentionAttrs& a) {
  const Shape qs = b.type(q).shape, ks = b.type(k).shape;
  const DType st = score_dtype(b.type(q).dtype);
  ValueId s = b.cast(b.matmul(q, transpose_last(b, repeat_heads(b, k, qs[1]))), st);
  s = b.binary(BinaryFn::Mul, s, b.full(ones4(), st, Scalar::from_double(a.scale)));
  if (!a.causal) return s;
  const Shape grid{1, 1, qs[2], ks[2]};
  ValueId rows = b.iota(grid, DType::I32, 2), cols = b.iota(grid, DType::I32, 3);
  ValueId shift = b.full(ones4(), DType::I32, Scalar::from_int(ks[2] - qs[2]));
  ValueId hidden = b.binary(BinaryFn::Gt, cols, b.binary(BinaryFn::Add, rows, shift));
  return b.where(hidden,
                 b.full(ones4(), st, Scalar::from_double(-std::numeric_limits<double>::infinity())),
                 s);
}

// softmax(q k^T * scale [causal]) in score_dtype, [B, H, Sq, Sk].
inline ValueId probabilities(Builder& b, ValueId q, ValueId k, const AttentionAttrs& a) {
  const DType st = score_dtype(b.type(q).dtype);
  ValueId s = scores(b, q, k, a);
  // A row that sees no key has maximum -inf: shift it by 0 instead (its exps are all 0).
  ValueId m = b.reduce(ReduceFn::Max, s, 3);
  m = b.where(b.unary(UnaryFn::IsInf, m), b.full(ones4(), st, Scalar::from_double(0)), m);
  ValueId e = b.unary(UnaryFn::Exp, b.binary(BinaryFn::Sub, s, m));
  ValueId sum = b.reduce(ReduceFn::Sum, e, 3);
  ValueId zero = b.binary(BinaryFn::Eq, sum, b.full(ones4(), st, Scalar::from_double(0)));
  sum = b.where(zero, b.full(ones4(), st, Scalar::from_double(1)), sum);
  return b.binary(BinaryFn::Div, e, sum);
}

// Mode kAttentionLse: log(sum(exp(scores))) per query, -inf for a query that sees no key.
inline ValueId log_sum_exp(Builder& b, ValueId q, ValueId k, const AttentionAttrs& a) {
  const DType st = score_dtype(b.type(q).dtype);
  ValueId s = scores(b, q, k, a);
  ValueId m = b.reduce(ReduceFn::Max, s, 3);
  m = b.where(b.unary(UnaryFn::IsInf, m), b.full(ones4(), st, Scalar::from_double(0)), m);
  ValueId sum = b.reduce(ReduceFn::Sum, b.unary(UnaryFn::Exp, b.binary(BinaryFn::Sub, s, m)), 3);
  return b.binary(BinaryFn::Add, m, b.unary(UnaryFn::Log, sum));
}

// Modes kAttentionGradQ and kAttentionGradKV from their operands (lse unused: the probabilities
// are recomputed exactly): dq, or dk and dv per query head packed along dim 0.
inline ValueId gradient_mode(Builder& b, const ValueIds& in, const AttentionAttrs& a);

inline ValueId forward(Builder& b, ValueId q, ValueId k, ValueId v, const AttentionAttrs& a) {
  const DType t = b.type(q).dtype;
  ValueId p = b.cast(probabilities(b, q, k, a), t);
  return b.matmul(p, repeat_heads(b, v, b.type(q).shape[1]));
}

// The gradient of the node's input `input` (0 q, 1 k, 2 v) given the output o and its gradient
// g: with P the probabilities, dV = P^T g, dS = P (g V^T - rowsum(g o)) * scale, dQ = dS K,
// dK = dS^T Q (key/value gradients summed over their group of query heads).
// `shared` (when given) keeps the probabilities and the score gradient between the calls for
// one node's three inputs, so that they are computed once.
inline ValueId gradient(Builder& b, ValueId q, ValueId k, ValueId v, ValueId o, ValueId g,
                        const AttentionAttrs& a, int input,
                        std::vector<ValueId>* shared = nullptr) {
  const DType t = b.type(q).dtype, st = score_dtype(t);
  const int64_t heads = b.type(q).shape[1], kv_heads = b.type(k).shape[1];
  std::vector<ValueId> local;
  std::vector<ValueId>& keep = shared ? *shared : local;
  keep.resize(2, -1);
  if (keep[0] < 0) keep[0] = probabilities(b, q, k, a);
  const ValueId p = keep[0];
  if (input == 2) {
    return sum_groups(b, b.matmul(transpose_last(b, b.cast(p, t)), g), kv_heads);
  }
  if (keep[1] < 0) {
    ValueId dp = b.cast(b.matmul(g, transpose_last(b, repeat_heads(b, v, heads))), st);
    ValueId go = b.binary(BinaryFn::Mul, b.cast(g, st), b.cast(o, st));
    ValueId delta = b.reduce(ReduceFn::Sum, go, 3);
    ValueId ds = b.binary(BinaryFn::Mul, p, b.binary(BinaryFn::Sub, dp, delta));
    ds = b.binary(BinaryFn::Mul, ds, b.full(ones4(), st, Scalar::from_double(a.scale)));
    keep[1] = b.cast(ds, t);
  }
  const ValueId ds = keep[1];
  if (input == 0) return b.matmul(ds, repeat_heads(b, k, heads));
  return sum_groups(b, b.matmul(transpose_last(b, ds), q), kv_heads);
}

inline ValueId gradient_mode(Builder& b, const ValueIds& in, const AttentionAttrs& a) {
  const ValueId q = in[0], k = in[1], v = in[2], g = in[3], delta = in[5];
  const DType t = b.type(q).dtype, st = score_dtype(t);
  const int64_t heads = b.type(q).shape[1];
  ValueId p = probabilities(b, q, k, a);
  ValueId dp = b.cast(b.matmul(g, transpose_last(b, repeat_heads(b, v, heads))), st);
  ValueId ds = b.binary(BinaryFn::Mul, p, b.binary(BinaryFn::Sub, dp, delta));
  ds = b.cast(b.binary(BinaryFn::Mul, ds, b.full(ones4(), st, Scalar::from_double(a.scale))), t);
  if (a.mode == kAttentionGradQ) return b.matmul(ds, repeat_heads(b, k, heads));
  ValueId dk = b.matmul(transpose_last(b, ds), q);
  ValueId dv = b.matmul(transpose_last(b, b.cast(p, t)), g);
  return b.concat({dk, dv}, 0);
}

// Whether a gradient goes through the fused kernels' modes (lse, dq, packed dk/dv) rather than
// the composite: half precision with equal head dims of 64 or 128 (what the kernels take; other
// devices rewrite the modes into composites).
inline bool gradient_by_modes(Builder& b, ValueId q, ValueId v) {
  const DType t = b.type(q).dtype;
  const int64_t d = b.type(q).shape[3];
  return (t == DType::F16 || t == DType::BF16) && (d == 64 || d == 128) && b.type(v).shape[3] == d;
}

// The gradient of input `input` through the modes; `shared` keeps lse, delta and the packed
// key/value gradients between one node's calls.
inline ValueId gradient_through_modes(Builder& b, ValueId q, ValueId k, ValueId v, ValueId o,
                                      ValueId g, const AttentionAttrs& a, int input,
                                      std::vector<ValueId>& shared) {
  const DType st = score_dtype(b.type(q).dtype);
  shared.resize(3, -1);
  if (shared[0] < 0) {
    AttentionAttrs la = a;
    la.mode = kAttentionLse;
    shared[0] = b.attention(q, k, v, la);
    ValueId go = b.binary(BinaryFn::Mul, b.cast(g, st), b.cast(o, st));
    shared[1] = b.reduce(ReduceFn::Sum, go, 3);
  }
  AttentionAttrs ga = a;
  if (input == 0) {
    ga.mode = kAttentionGradQ;
    return b.attention_grad(q, k, v, g, shared[0], shared[1], ga);
  }
  if (shared[2] < 0) {
    ga.mode = kAttentionGradKV;
    shared[2] = b.attention_grad(q, k, v, g, shared[0], shared[1], ga);
  }
  const Shape ps = b.type(shared[2]).shape;
  const int64_t batch = ps[0] / 2;
  ValueId part = b.slice(shared[2], {input == 1 ? 0 : batch, 0, 0, 0}, {batch, ps[1], ps[2], ps[3]},
                         {1, 1, 1, 1});
  return sum_groups(b, part, b.type(k).shape[1]);
}

}  // namespace ember::ir::attention_compose
