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

// softmax(q k^T * scale [causal]) in score_dtype, [B, H, Sq, Sk].
inline ValueId probabilities(Builder& b, ValueId q, ValueId k, const AttentionAttrs& a) {
  const Shape qs = b.type(q).shape, ks = b.type(k).shape;
  const DType st = score_dtype(b.type(q).dtype);
  ValueId s = b.matmul(q, transpose_last(b, repeat_heads(b, k, qs[1])));
  s = b.cast(s, st);
  s = b.binary(BinaryFn::Mul, s, b.full(ones4(), st, Scalar::from_double(a.scale)));
  if (a.causal) {
    const Shape grid{1, 1, qs[2], ks[2]};
    ValueId rows = b.iota(grid, DType::I32, 2), cols = b.iota(grid, DType::I32, 3);
    ValueId shift = b.full(ones4(), DType::I32, Scalar::from_int(ks[2] - qs[2]));
    ValueId hidden = b.binary(BinaryFn::Gt, cols, b.binary(BinaryFn::Add, rows, shift));
    ValueId minus_inf =
        b.full(ones4(), st, Scalar::from_double(-std::numeric_limits<double>::infinity()));
    s = b.where(hidden, minus_inf, s);
  }
  // A row that sees no key has maximum -inf: shift it by 0 instead (its exps are all 0).
  ValueId m = b.reduce(ReduceFn::Max, s, 3);
  m = b.where(b.unary(UnaryFn::IsInf, m), b.full(ones4(), st, Scalar::from_double(0)), m);
  ValueId e = b.unary(UnaryFn::Exp, b.binary(BinaryFn::Sub, s, m));
  ValueId sum = b.reduce(ReduceFn::Sum, e, 3);
  ValueId zero = b.binary(BinaryFn::Eq, sum, b.full(ones4(), st, Scalar::from_double(0)));
  sum = b.where(zero, b.full(ones4(), st, Scalar::from_double(1)), sum);
  return b.binary(BinaryFn::Div, e, sum);
}

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

}  // namespace ember::ir::attention_compose
