// The attribute table (ir/attrs.h): each field's role decides what hashing, comparison and
// printing do with it. Expected outcomes follow from the roles' definitions in ir/ops.h.
#include "ir/attrs.h"

#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/compare.h"

namespace ember::ir {
namespace {

// One node of `op` built from an input of shape [4, 6] by `make`.
template <class Make>
Graph one_node(Make make) {
  Graph g;
  Builder b(g);
  make(b, b.input(0, {DType::F32, Shape{4, 6}}));
  return g;
}

struct Outcome {
  bool same_hash;
  NodeMatch match;
};

template <class MakeA, class MakeB>
Outcome compare(MakeA a, MakeB b) {
  Graph ga = one_node(a), gb = one_node(b);
  int last = ga.size() - 1;
  return {structural_hash(ga, {last}) == structural_hash(gb, {last}),
          match_nodes(ga.node(last), gb.node(last))};
}

TEST(Attrs, KeyFieldsAreStructure) {
  Outcome o = compare([](Builder& b, ValueId x) { b.sort(x, 1, false, false); },
                      [](Builder& b, ValueId x) { b.sort(x, 1, true, false); });
  EXPECT_FALSE(o.same_hash);
  EXPECT_EQ(o.match, NodeMatch::Different);
}

TEST(Attrs, ExtentFieldsAreComparedButNotHashed) {
  // Slice starts: the same kernels serve both (the start is a parameter), but a replay needs
  // equal parameters.
  Outcome o = compare(
      [](Builder& b, ValueId x) {
        b.slice(x, {0, 1}, {2, 3}, {1, 1});
      },
      [](Builder& b, ValueId x) {
        b.slice(x, {2, 1}, {2, 3}, {1, 1});
      });
  EXPECT_TRUE(o.same_hash);
  EXPECT_EQ(o.match, NodeMatch::Different);
}

TEST(Attrs, SizeFieldsHashByEqualityClass) {
  // Slice steps 3 and 5 (sizes 4, 6, 2 and 1 in the graph): both new classes, so they hash
  // alike; a step of 1 is its own class, and a step of 2 equals the output's size 2.
  auto step = [](int64_t s) {
    return [s](Builder& b, ValueId x) { b.slice(x, {0, 0}, {2, 1}, {1, s}); };
  };
  EXPECT_TRUE(compare(step(3), step(5)).same_hash);
  EXPECT_FALSE(compare(step(3), step(1)).same_hash);
  EXPECT_FALSE(compare(step(3), step(2)).same_hash);
  EXPECT_EQ(compare(step(3), step(5)).match, NodeMatch::Different);
}

TEST(Attrs, ScalarFieldsAreRuntimeValues) {
  auto pad = [](Scalar v) { return [v](Builder& b, ValueId x) { b.pad(x, {1, 0}, {0, 2}, v); }; };
  Outcome o = compare(pad(Scalar::from_double(0.5)), pad(Scalar::from_double(-3.0)));
  EXPECT_TRUE(o.same_hash);
  EXPECT_EQ(o.match, NodeMatch::OtherScalars);
  // The kind of a scalar (int or float) is structure.
  Outcome kind = compare(pad(Scalar::from_double(2.0)), pad(Scalar::from_int(2)));
  EXPECT_FALSE(kind.same_hash);
  EXPECT_EQ(kind.match, NodeMatch::Different);
}

TEST(Attrs, RandomSeedIsAPatchableScalar) {
  RandomAttrs a{RandomDist::Normal, 0.0, 1.0, 42, 7};
  EXPECT_EQ(scalar_field_index(a, "seed"), 2);
  EXPECT_EQ(std::get<uint64_t>(scalar_field(a, scalar_field_index(a, "seed"))), 42u);
  EXPECT_EQ(std::get<double>(scalar_field(a, scalar_field_index(a, "b"))), 1.0);
  EXPECT_EQ(scalar_field_index(a, "dist"), -1);  // a key, not a runtime scalar
  EXPECT_EQ(attrs_text(a), "normal a=0 b=1 seed=42 offset=7");
}

TEST(Attrs, PrintsEveryFieldOnce) {
  EXPECT_EQ(attrs_text(SortAttrs{1, true, false}), "axis=1 descending");
  EXPECT_EQ(attrs_text(SliceAttrs{{0, 2}, {1, 3}}), "starts=[0,2] steps=[1,3]");
  EXPECT_EQ(attrs_text(ReduceAttrs{ReduceFn::Max, 0}), "axis=0");
  EXPECT_EQ(attrs_fn_name(ReduceAttrs{ReduceFn::Max, 0}), "max");
}

}  // namespace
}  // namespace ember::ir
