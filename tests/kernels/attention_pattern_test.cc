// Hand-written attention (kernels/attention/pattern.h): the chain frontend ops record for
// matmul(softmax(matmul(q, k^T) * scale), v) matches, with its scale and operands; a chain
// whose inner values are read elsewhere, or that is not attention, does not.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/builder.h"
#include "kernels/attention/pattern.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::Builder;
using ir::ReduceFn;
using ir::Scalar;
using ir::ValueId;

struct Chain {
  ir::Graph g;
  ValueId q, k, v, scores, out;
};

ValueId scalar(Builder& b, DType t, double x) {
  return b.full(Shape{1, 1, 1, 1}, t, Scalar::from_double(x));
}

// As module code writes it: scores in f32, activation::softmax, the weights cast back.
// `divide`: scores / sqrt(d) instead of times a scale.
Chain record(bool divide = false, std::vector<int> perm = {0, 1, 3, 2}, int64_t seq = 16) {
  Chain c;
  Builder b(c.g);
  const DType t = DType::BF16;
  c.q = b.input(0, {t, {2, 4, seq, 64}});
  c.k = b.input(1, {t, {2, 4, seq, 64}});
  c.v = b.input(2, {t, {2, 4, seq, 64}});
  c.scores = b.cast(b.matmul(c.q, b.permute(c.k, perm)), DType::F32);
  ValueId s = divide ? b.binary(BinaryFn::Div, c.scores, scalar(b, DType::F32, 8.0))
                     : b.binary(BinaryFn::Mul, c.scores, scalar(b, DType::F32, 0.125));
  ValueId e = b.unary(ir::UnaryFn::Exp, b.binary(BinaryFn::Sub, s, b.reduce(ReduceFn::Max, s, 3)));
  ValueId sum = b.reduce(ReduceFn::Sum, e, 3);
  ValueId p = b.binary(BinaryFn::Mul, e, b.binary(BinaryFn::Div, scalar(b, DType::F32, 1), sum));
  c.out = b.matmul(b.cast(p, t), c.v);
  return c;
}

TEST(AttentionPattern, MatchesTheChainFrontendOpsRecord) {
  for (bool divide : {false, true}) {
    Chain c = record(divide);
    auto m = match_attention(c.g, c.out, use_counts(c.g, {c.out}));
    ASSERT_TRUE(m.has_value()) << (divide ? "divided" : "scaled");
    EXPECT_EQ(m->q, c.q);
    EXPECT_EQ(m->k, c.k);
    EXPECT_EQ(m->v, c.v);
    EXPECT_DOUBLE_EQ(m->scale, 0.125);
    // Every node between the operands and the output, but not the constants.
    EXPECT_EQ(m->interior.size(), 11u);
    EXPECT_NE(std::find(m->interior.begin(), m->interior.end(), c.scores), m->interior.end());
  }
}

// The scale applied before the cast to f32 (module code's own order), and no scale at all.
TEST(AttentionPattern, MatchesScaleBeforeTheCastAndNoScale) {
  for (bool with_scale : {true, false}) {
    ir::Graph g;
    Builder b(g);
    const DType t = DType::BF16;
    ValueId q = b.input(0, {t, {1, 2, 8, 64}}), k = b.input(1, {t, {1, 2, 8, 64}}),
            v = b.input(2, {t, {1, 2, 8, 64}});
    ValueId s = b.matmul(q, b.permute(k, {0, 1, 3, 2}));
    if (with_scale) s = b.binary(BinaryFn::Mul, s, scalar(b, t, 0.25));
    s = b.cast(s, DType::F32);
    ValueId e =
        b.unary(ir::UnaryFn::Exp, b.binary(BinaryFn::Sub, s, b.reduce(ReduceFn::Max, s, 3)));
    ValueId p = b.binary(BinaryFn::Div, e, b.reduce(ReduceFn::Sum, e, 3));
    ValueId out = b.matmul(b.cast(p, t), v);
    auto m = match_attention(g, out, use_counts(g, {out}));
    ASSERT_TRUE(m.has_value()) << with_scale;
    EXPECT_DOUBLE_EQ(m->scale, with_scale ? 0.25 : 1.0);
    EXPECT_EQ(m->q, q);
    EXPECT_EQ(m->k, k);
  }
}

TEST(AttentionPattern, NoMatchWhenAnInnerValueIsReadElsewhere) {
  Chain c = record();
  EXPECT_FALSE(match_attention(c.g, c.out, use_counts(c.g, {c.out, c.scores})).has_value());
}

TEST(AttentionPattern, NoMatchWithoutTheKeyTranspose) {
  // Square operands, so that q k (untransposed) is a valid product.
  Chain c = record(false, {0, 1, 2, 3}, 64);
  EXPECT_FALSE(match_attention(c.g, c.out, use_counts(c.g, {c.out})).has_value());
}

TEST(AttentionPattern, NoMatchForAPlainMatmul) {
  ir::Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::BF16, {2, 4, 16, 64}});
  ValueId y = b.matmul(x, b.permute(x, {0, 1, 3, 2}));
  EXPECT_FALSE(match_attention(g, y, use_counts(g, {y})).has_value());
}

}  // namespace
}  // namespace ember::jit
