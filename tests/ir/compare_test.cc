#include "ir/compare.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

namespace ember::ir {
namespace {

// x * scale over a 2-D input, with a slice of the product.
Graph scaled(Shape s, double scale, int64_t start = 0) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, s});
  ValueId c = b.full(Shape{1, 1}, DType::F32, Scalar::from_double(scale));
  ValueId y = b.binary(BinaryFn::Mul, x, c);
  b.slice(y, {start, 0}, {1, s[1]}, {1, 1});
  return g;
}

bool same_graphs(const Graph& a, const Graph& b, bool* scalars) {
  if (a.size() != b.size()) return false;
  *scalars = true;
  for (ValueId v = 0; v < a.size(); ++v) {
    NodeMatch m = match_nodes(a.node(v), b.node(v));
    if (m == NodeMatch::Different) return false;
    *scalars = *scalars && m == NodeMatch::Same;
  }
  return true;
}

TEST(Compare, OtherScalarsKeepTheStructure) {
  bool scalars = false;
  EXPECT_TRUE(same_graphs(scaled({4, 8}, 2.0), scaled({4, 8}, 2.0), &scalars));
  EXPECT_TRUE(scalars);
  EXPECT_TRUE(same_graphs(scaled({4, 8}, 2.0), scaled({4, 8}, 3.0), &scalars));
  EXPECT_FALSE(scalars);
  // Compared bit for bit: -0 and 0 are other parameter words.
  EXPECT_TRUE(same_graphs(scaled({4, 8}, 0.0), scaled({4, 8}, -0.0), &scalars));
  EXPECT_FALSE(scalars);
}

TEST(Compare, SizesAndStartsAreStructure) {
  bool scalars = false;
  // The structural hash ignores concrete sizes and slice starts; replaying may not.
  EXPECT_FALSE(same_graphs(scaled({4, 8}, 2.0), scaled({4, 9}, 2.0), &scalars));
  EXPECT_FALSE(same_graphs(scaled({4, 8}, 2.0), scaled({4, 8}, 2.0, 1), &scalars));
}

TEST(Compare, InputsAndAttributesAreStructure) {
  Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, Shape{2, 3}});
  ValueId y = b.input(1, {DType::F32, Shape{2, 3}});
  ValueId add_xy = b.binary(BinaryFn::Add, x, y);
  ValueId add_yx = b.binary(BinaryFn::Add, y, x);
  ValueId mul_xy = b.binary(BinaryFn::Mul, x, y);
  ValueId sum0 = b.reduce(ReduceFn::Sum, x, 0);
  ValueId sum1 = b.reduce(ReduceFn::Sum, x, 1);
  auto differ = [&](ValueId a, ValueId b) {
    return match_nodes(g.node(a), g.node(b)) == NodeMatch::Different;
  };
  EXPECT_EQ(match_nodes(g.node(add_xy), g.node(add_xy)), NodeMatch::Same);
  EXPECT_TRUE(differ(add_xy, add_yx));
  EXPECT_TRUE(differ(add_xy, mul_xy));
  EXPECT_TRUE(differ(sum0, sum1));
  EXPECT_TRUE(differ(x, y));  // other input slots
}

}  // namespace
}  // namespace ember::ir
