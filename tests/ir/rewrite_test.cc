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

}  // namespace
}  // namespace ember::ir
