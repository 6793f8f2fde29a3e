// ir::rewrite: rules replace nodes, may read past their inputs through the map of new ids, and
// what nothing reads afterwards is dropped.
#include "ir/rewrite.h"

#include <gtest/gtest.h>

namespace ember::ir {
namespace {

TEST(Rewrite, RuleReadsPastItsInputsAndTheDeadNodeIsDropped) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, {4, 1}});
  ValueId wide = b.expand(x, {4, 3});  // read only by the negation below
  ValueId y = b.unary(UnaryFn::Neg, wide);
  std::vector<ValueId> outputs{y};
  // Negate the unexpanded value, then expand: the first expand is left unread.
  Graph out = rewrite(g, outputs,
                      [&](Builder& nb, const Node& n, ValueId, const ValueIds&,
                          const std::vector<ValueId>& remap) -> std::optional<ValueId> {
                        if (n.op != OpKind::Unary) return std::nullopt;
                        return nb.expand(nb.unary(UnaryFn::Neg, remap[x]), {4, 3});
                      });
  ASSERT_EQ(out.size(), 3);  // input, negation, expand
  EXPECT_EQ(out.node(0).op, OpKind::Input);
  EXPECT_EQ(out.node(1).op, OpKind::Unary);
  EXPECT_EQ(out.node(1).inputs[0], 0);
  EXPECT_EQ(out.node(outputs[0]).op, OpKind::Expand);
  EXPECT_EQ(out.type(outputs[0]).shape, (Shape{4, 3}));
}

TEST(Rewrite, NothingReplacedCopiesTheGraph) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, {2, 2}});
  std::vector<ValueId> outputs{b.unary(UnaryFn::Neg, b.unary(UnaryFn::Exp, x))};
  Graph out = rewrite(
      g, outputs, [](Builder&, const Node&, ValueId, const ValueIds&, const std::vector<ValueId>&) {
        return std::optional<ValueId>();
      });
  EXPECT_EQ(out.size(), g.size());
  EXPECT_EQ(outputs[0], 2);
}

// What became of each old node: copies keep their new id (after pruning), replaced nodes are
// marked, the dropped expand is -1; composing maps follows a second rewrite.
TEST(Rewrite, OldToNewNamesCopiesReplacementsAndDrops) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, {4, 1}});
  ValueId wide = b.expand(x, {4, 3});
  ValueId y = b.unary(UnaryFn::Neg, wide);
  ValueId z = b.unary(UnaryFn::Exp, y);
  std::vector<ValueId> outputs{z};
  std::vector<ValueId> map;
  Graph out = rewrite(
      g, outputs,
      [&](Builder& nb, const Node& n, ValueId id, const ValueIds&,
          const std::vector<ValueId>& remap) -> std::optional<ValueId> {
        if (id != y) return std::nullopt;
        return nb.expand(nb.unary(UnaryFn::Neg, remap[x]), {4, 3});
      },
      &map);
  ASSERT_EQ(map.size(), 4u);
  EXPECT_EQ(map[x], 0);
  EXPECT_EQ(map[wide], -1) << "dropped: nothing reads it";
  EXPECT_EQ(map[y], kReplacedNode);
  ASSERT_GE(map[z], 0);
  EXPECT_EQ(out.node(map[z]).op, OpKind::Unary);
  EXPECT_EQ(map[z], outputs[0]);
  // A second rewrite that copies everything: the composed map still finds z's copy.
  std::vector<ValueId> step, outputs2 = outputs;
  Graph again = rewrite(
      out, outputs2,
      [](Builder&, const Node&, ValueId, const ValueIds&, const std::vector<ValueId>&) {
        return std::optional<ValueId>();
      },
      &step);
  compose_old_to_new(map, step);
  EXPECT_EQ(map[z], outputs2[0]);
  EXPECT_EQ(map[y], kReplacedNode);
  EXPECT_EQ(again.size(), out.size());
}

}  // namespace
}  // namespace ember::ir
