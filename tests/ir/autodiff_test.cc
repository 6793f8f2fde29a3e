// The autodiff transforms on hand-built graphs, without running anything: the nodes
// reverse_mode appends, which values stop gradients, what each checkpointing policy keeps, and
// that Builder::replay copies every op kind. (Gradient values are checked against finite
// differences in tests/frontend/grad_check_test.cc.)
#include "ir/autodiff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/error.h"

namespace ember::ir {
namespace {

TensorType f32(Shape s) { return {DType::F32, std::move(s)}; }

class ReverseMode : public ::testing::Test {
 protected:
  ValueId in(TensorType t) { return b.input(slot++, std::move(t)); }
  ValueId seed_for(ValueId y) {
    return b.full(g.type(y).shape, g.type(y).dtype, Scalar::from_double(1));
  }
  const Node& node(ValueId v) const { return g.node(v); }
  BinaryFn binary_fn(ValueId v) const { return node(v).get<BinaryAttrs>().fn; }

  Graph g;
  Builder b{g};
  int slot = 0;
};

// y = exp(a) * b: d/db = seed * exp(a), d/da = (seed * b) * exp(a), reusing the forward exp.
TEST_F(ReverseMode, ExpTimesInputAppendsOneMulPerContribution) {
  ValueId a = in(f32({2, 3})), bv = in(f32({2, 3})), unrelated = in(f32({2, 3}));
  ValueId e = b.unary(UnaryFn::Exp, a);
  ValueId y = b.binary(BinaryFn::Mul, e, bv);
  ValueId seed = seed_for(y);
  int before = g.size();
  std::vector<ValueId> grads = reverse_mode(g, y, seed, {a, bv, unrelated});

  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[2], -1) << "y does not depend on the third input";
  EXPECT_EQ(g.size(), before + 3) << print_graph(g);
  for (ValueId i = before; i < g.size(); ++i) {
    EXPECT_EQ(node(i).op, OpKind::Binary) << print_node(g, i);
    EXPECT_EQ(binary_fn(i), BinaryFn::Mul) << print_node(g, i);
    EXPECT_EQ(node(i).type, f32({2, 3})) << print_node(g, i);
    EXPECT_STREQ(node(i).label, "backward") << "gradient nodes are labelled for error messages";
  }

  const Node& gb = node(grads[1]);
  EXPECT_EQ(gb.inputs, (ValueIds{seed, e}));

  const Node& ga = node(grads[0]);
  ASSERT_EQ(ga.inputs.size(), 2u);
  EXPECT_EQ(ga.inputs[1], e) << "the exp rule reads exp's own output";
  EXPECT_EQ(node(ga.inputs[0]).inputs, (ValueIds{seed, bv}));
  EXPECT_EQ(g.type(grads[0]), g.type(a));
  EXPECT_EQ(g.type(grads[1]), g.type(bv));
}

TEST_F(ReverseMode, GradientOfTheOutputItselfIsTheSeed) {
  ValueId a = in(f32({3}));
  ValueId y = b.unary(UnaryFn::Sin, a);
  ValueId seed = seed_for(y);
  std::vector<ValueId> grads = reverse_mode(g, y, seed, {y});
  EXPECT_EQ(grads, (std::vector<ValueId>{seed}));
}

TEST_F(ReverseMode, ValuesDefinedAfterTheOutputGetNone) {
  ValueId a = in(f32({3}));
  ValueId y = b.unary(UnaryFn::Exp, a);
  ValueId later = b.unary(UnaryFn::Sin, a);
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {later, a});
  EXPECT_EQ(grads[0], -1);
  EXPECT_GE(grads[1], 0);
}

TEST_F(ReverseMode, SeveralUsesAreSummedWithAnAdd) {
  ValueId a = in(f32({4}));
  ValueId y = b.binary(BinaryFn::Add, b.unary(UnaryFn::Exp, a), b.unary(UnaryFn::Sin, a));
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {a});
  const Node& sum = node(grads[0]);
  ASSERT_EQ(sum.op, OpKind::Binary) << print_graph(g);
  EXPECT_EQ(binary_fn(grads[0]), BinaryFn::Add) << print_graph(g);
  ASSERT_EQ(sum.inputs.size(), 2u);
  // One contribution through exp (g * exp(a)), one through sin (g * cos(a)).
  for (ValueId c : sum.inputs) {
    EXPECT_EQ(node(c).op, OpKind::Binary) << print_node(g, c);
    EXPECT_EQ(binary_fn(c), BinaryFn::Mul) << print_node(g, c);
  }
  bool through_cos = false;
  for (ValueId c : sum.inputs) {
    for (ValueId v : node(c).inputs) {
      const Node& n = node(v);
      through_cos |= n.op == OpKind::Unary && n.get<UnaryAttrs>().fn == UnaryFn::Cos;
    }
  }
  EXPECT_TRUE(through_cos) << print_graph(g);
}

// Slices side by side along one axis (q, k and v cut from one packed projection): their
// gradients come back as one concatenation in slice order, not a sum of zero pads. A gap
// between slices keeps its zeros as one pad around the joined part.
TEST_F(ReverseMode, AdjacentSlicesGradientsAreConcatenated) {
  ValueId x = in(f32({2, 9, 4}));
  auto narrow = [&](int64_t start, int64_t count) {
    return b.slice(x, {0, start, 0}, {2, count, 4}, {1, 1, 1});
  };
  ValueId q = narrow(0, 3), k = narrow(3, 3), v = narrow(6, 3);
  ValueId y = b.binary(BinaryFn::Add, b.binary(BinaryFn::Mul, q, k), b.unary(UnaryFn::Exp, v));
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {x});
  const Node& joined = node(grads[0]);
  ASSERT_EQ(joined.op, OpKind::Concat) << print_graph(g);
  EXPECT_EQ(joined.get<AxisAttrs>().axis, 1);
  ASSERT_EQ(joined.inputs.size(), 3u) << print_graph(g);
  // In slice order: q's gradient is seed * k, k's seed * q, v's seed * exp(v).
  const Node& dq = node(joined.inputs[0]);
  ASSERT_EQ(dq.op, OpKind::Binary);
  EXPECT_TRUE(dq.inputs[0] == k || dq.inputs[1] == k) << print_graph(g);
  const Node& dv = node(joined.inputs[2]);
  ASSERT_EQ(dv.op, OpKind::Binary);
  EXPECT_EQ(node(dv.inputs[1]).op, OpKind::Unary) << print_graph(g);
  EXPECT_EQ(g.type(grads[0]), g.type(x));

  // Two slices with a gap between them: a sum (they are not side by side).
  ValueId z = in(f32({6}));
  ValueId lo = b.slice(z, {0}, {2}, {1}), hi = b.slice(z, {4}, {2}, {1});
  ValueId w = b.binary(BinaryFn::Mul, lo, hi);
  std::vector<ValueId> gz = reverse_mode(g, w, seed_for(w), {z});
  EXPECT_EQ(node(gz[0]).op, OpKind::Binary) << print_graph(g);

  // Side by side but not from the start: the joined part padded once.
  ValueId u = in(f32({7}));
  ValueId a1 = b.slice(u, {2}, {2}, {1}), a2 = b.slice(u, {4}, {2}, {1});
  ValueId p = b.binary(BinaryFn::Mul, a1, a2);
  std::vector<ValueId> gu = reverse_mode(g, p, seed_for(p), {u});
  const Node& padded = node(gu[0]);
  ASSERT_EQ(padded.op, OpKind::Pad) << print_graph(g);
  EXPECT_EQ(padded.get<PadAttrs>().before, (std::vector<int64_t>{2}));
  EXPECT_EQ(padded.get<PadAttrs>().after, (std::vector<int64_t>{1}));
  EXPECT_EQ(node(padded.inputs[0]).op, OpKind::Concat) << print_graph(g);
}

// Many slices side by side (a split into 40 pieces): the joined gradient nests its
// concatenations so that none has more than 16 parts (the planner cuts only inline parts).
TEST_F(ReverseMode, JoinedSliceGradientsKeepConcatenationsNarrow) {
  ValueId x = in(f32({40, 3}));
  ValueId y = -1;
  for (int64_t i = 0; i < 40; ++i) {
    ValueId piece = b.unary(UnaryFn::Exp, b.slice(x, {i, 0}, {1, 3}, {1, 1}));
    y = y < 0 ? piece : b.binary(BinaryFn::Add, y, piece);
  }
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {x});
  ASSERT_EQ(node(grads[0]).op, OpKind::Concat) << print_graph(g);
  int64_t widest = 0, parts = 0;
  std::vector<ValueId> stack{grads[0]};
  while (!stack.empty()) {  // the leaves of the concatenation tree: one per piece
    const Node& n = node(stack.back());
    stack.pop_back();
    if (n.op != OpKind::Concat) {
      ++parts;
      continue;
    }
    widest = std::max<int64_t>(widest, static_cast<int64_t>(n.inputs.size()));
    for (ValueId v : n.inputs) stack.push_back(v);
  }
  EXPECT_LE(widest, 16);
  EXPECT_EQ(parts, 40);
  EXPECT_EQ(g.type(grads[0]), g.type(x));
}

TEST_F(ReverseMode, ASquareGetsBothFactorsContributions) {
  ValueId a = in(f32({2}));
  ValueId y = b.binary(BinaryFn::Mul, a, a);
  ValueId seed = seed_for(y);
  std::vector<ValueId> grads = reverse_mode(g, y, seed, {a});
  ASSERT_EQ(node(grads[0]).op, OpKind::Binary);
  EXPECT_EQ(binary_fn(grads[0]), BinaryFn::Add) << print_graph(g);
  for (ValueId c : node(grads[0]).inputs) {
    EXPECT_EQ(node(c).inputs, (ValueIds{seed, a})) << print_node(g, c);
  }
}

TEST_F(ReverseMode, BroadcastOperandsAreSummedBackToTheirShapes) {
  ValueId a = in(f32({2, 1})), c = in(f32({1, 3}));
  ValueId y = b.binary(BinaryFn::Add, a, c);
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {a, c});
  for (auto [grad, axis] : {std::pair{grads[0], 1}, std::pair{grads[1], 0}}) {
    const Node& n = node(grad);
    ASSERT_EQ(n.op, OpKind::Reduce) << print_graph(g);
    EXPECT_EQ(n.get<ReduceAttrs>().fn, ReduceFn::Sum);
    EXPECT_EQ(n.get<ReduceAttrs>().axis, axis);
  }
  EXPECT_EQ(g.type(grads[0]), g.type(a));
  EXPECT_EQ(g.type(grads[1]), g.type(c));
}

TEST_F(ReverseMode, IntegerAndBoolValuesStopGradients) {
  ValueId x = in(f32({3}));
  ValueId index = b.reduce(ReduceFn::ArgMax, x, 0);  // i32[1]
  ValueId picked = b.cast(index, DType::F32);
  ValueId through_index_only = b.binary(BinaryFn::Mul, picked, picked);
  EXPECT_EQ(reverse_mode(g, through_index_only, seed_for(through_index_only), {x}),
            (std::vector<ValueId>{-1}));

  ValueId mask = b.cast(b.binary(BinaryFn::Gt, x, b.full({1}, DType::F32, Scalar::from_double(0))),
                        DType::F32);
  ValueId y = b.binary(BinaryFn::Mul, x, mask);
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {x});
  ASSERT_GE(grads[0], 0);
  EXPECT_EQ(node(grads[0]).op, OpKind::Binary) << "one contribution, through the product only";
  EXPECT_EQ(binary_fn(grads[0]), BinaryFn::Mul) << print_graph(g);
}

TEST_F(ReverseMode, ValueMapRedirectsWhatRulesRead) {
  ValueId a = in(f32({3}));
  ValueId e = b.unary(UnaryFn::Exp, a);
  ValueId kept = in(f32({3}));  // exp(a), as kept by a checkpointing policy
  ValueId seed = seed_for(e);
  std::vector<ValueId> values(g.size());
  for (ValueId i = 0; i < g.size(); ++i) values[i] = i;
  values[e] = kept;
  std::vector<ValueId> grads = reverse_mode(g, e, seed, {a}, &values);
  EXPECT_EQ(node(grads[0]).inputs, (ValueIds{seed, kept}));
}

TEST_F(ReverseMode, RejectsASeedOfAnotherTypeAndAShortValueMap) {
  ValueId a = in(f32({3}));
  ValueId y = b.unary(UnaryFn::Exp, a);
  ValueId wrong = b.full({2}, DType::F32, Scalar::from_double(1));
  EXPECT_THROW(reverse_mode(g, y, wrong, {a}), Error);
  std::vector<ValueId> short_map = {0};
  EXPECT_THROW(reverse_mode(g, y, seed_for(y), {a}, &short_map), Error);
}

// conv_block_train's weight gradient (batch 32 of 56x56, 64 -> 64 channels, 3x3, pad 1): one
// group per sample (32 slices of 3136 terms) and two parts of 28 output rows, each part a
// convolution over the 29 input rows it reads (the first with the padding above, the second with
// the padding below).
TEST_F(ReverseMode, ConvWeightGradientSplitsBatchIntoSlicesAndRowsIntoParts) {
  if (std::getenv("EMBER_CONV_WGRAD_PARTS")) GTEST_SKIP() << "EMBER_CONV_WGRAD_PARTS is set";
  ValueId x = in(f32({32, 64, 56, 56})), w = in(f32({64, 64, 3, 3}));
  ValueId y = b.conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1});
  const ValueId first = g.size();
  std::vector<ValueId> grads = reverse_mode(g, y, seed_for(y), {w});
  EXPECT_EQ(g.type(grads[0]), f32({64, 64, 3, 3}));
  std::vector<ValueId> convs;
  for (ValueId v = first; v < g.size(); ++v)
    if (node(v).op == OpKind::Conv) convs.push_back(v);
  ASSERT_EQ(convs.size(), 2u);
  for (size_t p = 0; p < convs.size(); ++p) {
    SCOPED_TRACE(p);
    const auto& a = node(convs[p]).get<ConvAttrs>();
    EXPECT_EQ(a.groups, 32);
    EXPECT_EQ(g.type(node(convs[p]).inputs[0]).shape, Shape({64, 32, 29, 56}));
    EXPECT_EQ(g.type(node(convs[p]).inputs[1]).shape, Shape({2048, 1, 28, 56}));
    EXPECT_EQ(a.pad_before, (std::vector<int64_t>{p == 0 ? 1 : 0, 1}));
    EXPECT_EQ(a.pad_after, (std::vector<int64_t>{p == 1 ? 1 : 0, 1}));
    EXPECT_EQ(g.type(convs[p]).shape, Shape({64, 2048, 3, 3}));
  }
}

// ---------------------------------------------------------------- every primitive's rule

struct RuleCase {
  std::string name;
  // Builds the op from fresh inputs; returns its output and the inputs that should get a
  // gradient (-1 marks an input that should not, e.g. an index).
  std::function<std::pair<ValueId, std::vector<ValueId>>(Builder&, int&)> build;
};

std::vector<RuleCase> rule_cases() {
  using P = std::pair<ValueId, std::vector<ValueId>>;
  auto input = [](Builder& b, int& slot, TensorType t) { return b.input(slot++, std::move(t)); };
  auto idx = [](Builder& b, int& slot, Shape s) {
    return b.input(slot++, {DType::I32, std::move(s)});
  };
  std::vector<RuleCase> cases;
  for (UnaryFn fn : {UnaryFn::Neg, UnaryFn::Abs, UnaryFn::Exp, UnaryFn::Log, UnaryFn::Log1p,
                     UnaryFn::Sqrt, UnaryFn::Sin, UnaryFn::Cos, UnaryFn::Tan, UnaryFn::Tanh,
                     UnaryFn::Sinh, UnaryFn::Cosh, UnaryFn::Erf, UnaryFn::Floor, UnaryFn::Ceil,
                     UnaryFn::Round, UnaryFn::Recip, UnaryFn::Sign}) {
    cases.push_back({std::string("unary.") + unary_name(fn), [=](Builder& b, int& s) -> P {
                       ValueId x = input(b, s, f32({2, 3}));
                       return {b.unary(fn, x), {x}};
                     }});
  }
  for (BinaryFn fn : {BinaryFn::Add, BinaryFn::Sub, BinaryFn::Mul, BinaryFn::Div, BinaryFn::Rem,
                      BinaryFn::Pow, BinaryFn::Max, BinaryFn::Min}) {
    cases.push_back({std::string("binary.") + binary_name(fn), [=](Builder& b, int& s) -> P {
                       ValueId x = input(b, s, f32({2, 1, 3})), y = input(b, s, f32({1, 4, 1}));
                       return {b.binary(fn, x, y), {x, y}};
                     }});
  }
  cases.push_back({"where", [=](Builder& b, int& s) -> P {
                     ValueId c = b.input(s++, {DType::Bool, {2, 1}});
                     ValueId x = input(b, s, f32({2, 3})), y = input(b, s, f32({1, 3}));
                     return {b.where(c, x, y), {-1, x, y}};
                   }});
  cases.push_back({"cast_f16", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({3}));
                     return {b.cast(x, DType::F16), {x}};
                   }});
  for (ReduceFn fn : {ReduceFn::Sum, ReduceFn::Prod, ReduceFn::Max, ReduceFn::Min}) {
    cases.push_back({std::string("reduce.") + reduce_name(fn), [=](Builder& b, int& s) -> P {
                       ValueId x = input(b, s, f32({2, 3}));
                       return {b.reduce(fn, x, 1), {x}};
                     }});
  }
  cases.push_back({"reshape", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3}));
                     return {b.reshape(x, {3, 1, 2}), {x}};
                   }});
  cases.push_back({"permute", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3, 4}));
                     return {b.permute(x, {2, 0, 1}), {x}};
                   }});
  cases.push_back({"expand", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({1, 3, 1}));
                     return {b.expand(x, {2, 3, 4}), {x}};
                   }});
  cases.push_back({"slice", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({5, 7}));
                     return {b.slice(x, {1, 0}, {2, 3}, {2, 3}), {x}};
                   }});
  cases.push_back({"flip", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3}));
                     return {b.flip(x, {1}), {x}};
                   }});
  cases.push_back({"pad", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3}));
                     return {b.pad(x, {1, 0}, {2, 3}, Scalar::from_double(0.5)), {x}};
                   }});
  cases.push_back({"concat", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3})), y = input(b, s, f32({2, 1}));
                     return {b.concat({x, y, x}, 1), {x, y}};
                   }});
  cases.push_back({"matmul", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({1, 2, 3})), y = input(b, s, f32({4, 3, 5}));
                     return {b.matmul(x, y), {x, y}};
                   }});
  cases.push_back({"gather", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3}));
                     ValueId i = idx(b, s, {2, 5});
                     return {b.gather(x, 1, i), {x, -1}};
                   }});
  cases.push_back({"scatter_add", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 3}));
                     ValueId i = idx(b, s, {2, 2});
                     ValueId v = input(b, s, f32({2, 2}));
                     return {b.scatter_add(x, 1, i, v), {x, -1, v}};
                   }});
  cases.push_back({"sort", [=](Builder& b, int& s) -> P {
                     ValueId x = input(b, s, f32({2, 4}));
                     return {b.sort(x, 1, true, false), {x}};
                   }});
  for (CollectiveKind kind :
       {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    cases.push_back({collective_name(kind), [=](Builder& b, int& s) -> P {
                       ValueId x = input(b, s, f32({4, 3}));
                       return {b.collective(x, {kind, CollectiveReduce::Sum, 0, 1, 2}), {x}};
                     }});
  }
  return cases;
}

// Each rule gives every float input a gradient of the input's type, and nothing to the rest.
TEST(VjpRules, EveryDifferentiablePrimitiveGivesGradientsOfItsInputsTypes) {
  for (const RuleCase& c : rule_cases()) {
    SCOPED_TRACE(c.name);
    Graph g;
    Builder b(g);
    int slot = 0;
    auto [y, inputs] = c.build(b, slot);
    std::vector<ValueId> wrt;
    for (ValueId v : g.node(y).inputs) wrt.push_back(v);
    ValueId seed = b.full(g.type(y).shape, g.type(y).dtype, Scalar::from_double(1));
    std::vector<ValueId> grads;
    try {
      grads = reverse_mode(g, y, seed, wrt);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    for (size_t k = 0; k < wrt.size(); ++k) {
      ValueId expected = -1;
      for (ValueId v : inputs) expected = v == wrt[k] ? v : expected;
      if (expected < 0) {
        EXPECT_EQ(grads[k], -1) << "input " << k << " is not differentiable";
        continue;
      }
      ASSERT_GE(grads[k], 0) << "input " << k << " gets no gradient\n" << print_graph(g);
      EXPECT_EQ(g.type(grads[k]), g.type(wrt[k]))
          << "input " << k << ": " << g.type(grads[k]).to_string() << " for "
          << g.type(wrt[k]).to_string();
    }
  }
}

// A collective's gradient is the transposed collective: all-reduce to all-reduce (sum and
// mean), all-gather to a sum reduce-scatter and back; a broadcast or a max has no rule.
TEST(VjpRules, CollectivesTransposeToCollectives) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, f32({4, 3}));
  auto grad_node = [&](CollectiveAttrs a) {
    ValueId y = b.collective(x, a);
    ValueId seed = b.full(g.type(y).shape, DType::F32, Scalar::from_double(1));
    ValueId dx = reverse_mode(g, y, seed, {x})[0];
    EXPECT_EQ(g.node(dx).op, OpKind::Collective) << print_node(g, dx);
    return g.node(dx).get<CollectiveAttrs>();
  };
  CollectiveAttrs mean = grad_node({CollectiveKind::AllReduce, CollectiveReduce::Mean, 0, 7, 2});
  EXPECT_EQ(mean.kind, CollectiveKind::AllReduce);
  EXPECT_EQ(mean.reduce, CollectiveReduce::Mean);
  EXPECT_EQ(mean.communicator, 7);
  EXPECT_EQ(grad_node({CollectiveKind::AllGather, CollectiveReduce::Sum, 0, 7, 2}).kind,
            CollectiveKind::ReduceScatter);
  EXPECT_EQ(grad_node({CollectiveKind::ReduceScatter, CollectiveReduce::Sum, 0, 7, 2}).kind,
            CollectiveKind::AllGather);
  for (CollectiveAttrs a :
       {CollectiveAttrs{CollectiveKind::Broadcast, CollectiveReduce::Sum, 1, 7, 2},
        CollectiveAttrs{CollectiveKind::AllReduce, CollectiveReduce::Max, 0, 7, 2}}) {
    ValueId y = b.collective(x, a);
    ValueId seed = b.full(g.type(y).shape, DType::F32, Scalar::from_double(1));
    EXPECT_THROW(reverse_mode(g, y, seed, {x}), Error) << print_node(g, y);
  }
}

TEST(VjpRules, NonDifferentiableOutputsGiveNoGradient) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, f32({2, 3}));
  ValueId y = b.input(1, f32({2, 3}));
  for (ValueId out : {b.binary(BinaryFn::Lt, x, y), b.reduce(ReduceFn::ArgMax, x, 1),
                      b.reduce(ReduceFn::ArgMin, x, 0), b.sort(x, 1, false, true),
                      b.cast(x, DType::I32), b.unary(UnaryFn::IsNan, x)}) {
    SCOPED_TRACE(print_node(g, out));
    ValueId seed = b.full(g.type(out).shape, g.type(out).dtype, Scalar::from_int(1));
    EXPECT_EQ(reverse_mode(g, out, seed, {x}), (std::vector<ValueId>{-1}));
  }
}

TEST(VjpRules, CarriesGradientOnlyForFloats) {
  for (int t = 0; t < kDTypeCount; ++t) {
    DType dtype = static_cast<DType>(t);
    Node n{OpKind::Input, {}, {dtype, {2}}, InputAttrs{0}};
    EXPECT_EQ(carries_gradient(n), is_float(dtype)) << dtype_name(dtype);
  }
}

// ---------------------------------------------------------------- checkpointing policies

TEST(CheckpointingPolicy, SaveAllKeepsEverythingBalancedKeepsComputeBoundOutputs) {
  EXPECT_STREQ(checkpointing_name(Checkpointing::save_all), "save_all");
  EXPECT_STREQ(checkpointing_name(Checkpointing::balanced), "balanced");
  for (int k = 0; k < kOpKindCount; ++k) {
    OpKind op = static_cast<OpKind>(k);
    Node n{op, {}, f32({2}), NoAttrs{}};
    SCOPED_TRACE(op_name(op));
    EXPECT_TRUE(keeps_for_backward(n, Checkpointing::save_all));
    bool compute_bound = op == OpKind::Matmul || op == OpKind::Conv || op == OpKind::Reduce ||
                         op == OpKind::Sort || op == OpKind::Attention || op == OpKind::Lstm;
    bool once = op == OpKind::Input || op == OpKind::Collective;
    EXPECT_EQ(keeps_for_backward(n, Checkpointing::balanced), once || compute_bound)
        << "inputs and collectives cannot be recomputed; matmul, conv, reduce and sort are "
           "worth keeping (and attention's output, which its gradient reads)";
  }
}

// ---------------------------------------------------------------- replay

// One node of every op kind (and the attribute variants replay treats specially), recorded
// under a user-op label.
Graph every_op_kind() {
  Graph g;
  Builder b(g);
  OpScope scope("user_op");
  ValueId x = b.input(0, f32({2, 3}));
  ValueId y = b.input(1, f32({2, 3}));
  ValueId i = b.input(2, {DType::I32, {2, 2}});
  b.full({2, 3}, DType::F32, Scalar::from_double(0.25));
  b.full({2}, DType::I64, Scalar::from_int(-7));
  b.iota({2, 3}, DType::I64, 1);
  b.random({4}, DType::F32, {RandomDist::Normal, 0.0, 2.0, 42, 1024});
  b.unary(UnaryFn::Tanh, x);
  b.binary(BinaryFn::Pow, x, y);
  b.where(b.binary(BinaryFn::Ge, x, y), x, y);
  b.cast(x, DType::BF16);
  b.reduce(ReduceFn::Prod, x, 1);
  b.reduce(ReduceFn::ArgMin, x, 0, DType::I64);
  b.reshape(x, {3, 2});
  b.permute(x, {1, 0});
  b.expand(b.reduce(ReduceFn::Sum, x, 0), {4, 3});
  b.slice(x, {1, 0}, {1, 2}, {1, 2});
  b.flip(x, {0, 1});
  b.pad(x, {0, 1}, {2, 0}, Scalar::from_double(-1));
  b.concat({x, y, x}, 0);
  b.matmul(x, b.permute(y, {1, 0}));
  b.gather(x, 1, i);
  b.scatter_add(x, 1, i, b.slice(y, {0, 0}, {2, 2}, {1, 1}));
  b.sort(x, 1, true, false);
  b.sort(x, 0, false, true, DType::I64);
  ValueId img = b.input(3, f32({1, 4, 5, 5}));
  ValueId w = b.input(4, f32({6, 2, 3, 2}));
  b.conv(img, w, {{2, 1}, {1, 0}, {0, 1}, {1, 2}, 2});
  b.collective(x, {CollectiveKind::ReduceScatter, CollectiveReduce::Mean, 0, 3, 2});
  ValueId q = b.input(5, {DType::BF16, {2, 4, 3, 8}});
  ValueId kv = b.input(6, {DType::BF16, {2, 2, 5, 8}});
  b.attention(q, kv, kv, {0.125, true});
  ValueId xp = b.input(7, f32({2, 3, 8}));
  ValueId wh = b.input(8, f32({2, 8}));
  ValueId st = b.input(9, f32({2, 2}));
  ValueId packed = b.lstm(xp, wh, st, st, {true, kLstmForward});
  b.lstm_grad(packed, wh, st, packed, {true, kLstmGrad},
              b.full({2}, DType::I32, Scalar::from_int(0)));
  return g;
}

TEST(Replay, ReproducesEveryOpKindWithItsAttrsTypeAndLabel) {
  Graph g = every_op_kind();
  Graph copy;
  Builder b(copy);
  std::set<OpKind> kinds;
  for (ValueId v = 0; v < g.size(); ++v) {
    const Node& n = g.node(v);
    kinds.insert(n.op);
    ValueId id =
        n.op == OpKind::Input ? b.input(n.get<InputAttrs>().slot, n.type) : b.replay(n, n.inputs);
    ASSERT_EQ(id, v);
    EXPECT_EQ(print_node(copy, id), print_node(g, v));
    if (n.op != OpKind::Input) {
      EXPECT_STREQ(copy.node(id).label, "user_op") << print_node(g, v);
    }
  }
  EXPECT_EQ(static_cast<int>(kinds.size()), kOpKindCount) << "a kind is missing from the graph";
  EXPECT_EQ(print_graph(copy), print_graph(g));
}

TEST(Replay, ReinfersTheTypeFromNewInputs) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, f32({2, 3}));
  Node add = g.node(b.binary(BinaryFn::Add, x, x));
  ValueId wide = b.input(1, f32({4, 3}));
  ValueId copy = b.replay(add, {wide, b.input(2, f32({1, 3}))});
  EXPECT_EQ(g.type(copy), f32({4, 3}));
  ValueId bad = b.input(3, f32({5, 2}));
  EXPECT_THROW(b.replay(add, {wide, bad}), Error) << "re-validated";
}

TEST(Replay, RejectsInputsAndWrongInputCounts) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, f32({2}));
  Node input = g.node(x);
  Node neg = g.node(b.unary(UnaryFn::Neg, x));
  EXPECT_THROW(b.replay(input, {}), Error);
  EXPECT_THROW(b.replay(neg, {x, x}), Error);
}

}  // namespace
}  // namespace ember::ir
