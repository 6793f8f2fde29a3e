// Validation and shape inference at record time.
#include "ir/builder.h"

#include <gtest/gtest.h>

#include "ir/error.h"

namespace ember::ir {
namespace {

class BuilderTest : public ::testing::Test {
 protected:
  ValueId in(DType t, Shape s) { return b.input(slot++, {t, std::move(s)}); }
  template <class F>
  std::string error_of(F&& f) {
    int before = g.size();
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(g.size(), before) << "a rejected op must not append anything";
      return e.what();
    }
    ADD_FAILURE() << "expected ember::Error";
    return "";
  }
  Graph g;
  Builder b{g};
  int slot = 0;
};

TEST_F(BuilderTest, BinaryBroadcastsAndTypesComparisons) {
  ValueId x = in(DType::F32, {2, 1, 4});
  ValueId y = in(DType::F32, {1, 3, 4});
  ValueId s = b.binary(BinaryFn::Add, x, y);
  EXPECT_EQ(g.type(s).shape, (Shape{2, 3, 4}));
  ValueId c = b.binary(BinaryFn::Lt, x, y);
  EXPECT_EQ(g.type(c).dtype, DType::Bool);
}

TEST_F(BuilderTest, BinaryRejectsBadShapesAndDtypes) {
  ValueId x = in(DType::F32, {2, 3});
  ValueId y = in(DType::F32, {3, 2});
  ValueId i = in(DType::I32, {2, 3});
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::Add, x, y); }).find("add: shapes [2, 3] and [3, 2]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::Add, x, i); }).find("dtypes differ: f32 and i32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::BitAnd, x, x); }).find("needs int"),
            std::string::npos);
  ValueId t = in(DType::Bool, {2, 3});
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::Mul, t, t); }).find("bool"), std::string::npos);
  ValueId r3 = in(DType::F32, {2, 3, 1});
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::Add, x, r3); }).find("ranks"), std::string::npos);
}

TEST_F(BuilderTest, UnaryDtypeRules) {
  ValueId i = in(DType::I32, {3});
  ValueId f = in(DType::F16, {3});
  EXPECT_NE(error_of([&] { b.unary(UnaryFn::Exp, i); }).find("exp: needs a float tensor, got i32"),
            std::string::npos);
  EXPECT_EQ(g.type(b.unary(UnaryFn::IsNan, f)).dtype, DType::Bool);
  EXPECT_EQ(g.type(b.unary(UnaryFn::Abs, i)).dtype, DType::I32);
  EXPECT_NO_THROW(b.unary(UnaryFn::BitwiseNot, i));
  EXPECT_THROW(b.unary(UnaryFn::LogicalNot, i), Error);
}

TEST_F(BuilderTest, ReduceKeepsAxisAndArgReturnsIndexDtype) {
  ValueId x = in(DType::F64, {4, 5});
  EXPECT_EQ(g.type(b.reduce(ReduceFn::Sum, x, 1)).shape, (Shape{4, 1}));
  ValueId a = b.reduce(ReduceFn::ArgMax, x, 0, DType::I64);
  EXPECT_EQ(g.type(a), (TensorType{DType::I64, {1, 5}}));
  EXPECT_THROW(b.reduce(ReduceFn::Sum, x, 2), Error);
  EXPECT_THROW(b.reduce(ReduceFn::Max, in(DType::F32, {0, 2}), 0), Error);
  EXPECT_NO_THROW(b.reduce(ReduceFn::Sum, in(DType::F32, {0, 2}), 0));
}

TEST_F(BuilderTest, Views) {
  ValueId x = in(DType::F32, {2, 3, 4});
  EXPECT_EQ(g.type(b.reshape(x, {6, 4})).shape, (Shape{6, 4}));
  EXPECT_NE(error_of([&] {
              b.reshape(x, {5, 5});
            }).find("cannot reshape [2, 3, 4] (24 elements) to [5, 5]"),
            std::string::npos);
  EXPECT_EQ(g.type(b.permute(x, {2, 0, 1})).shape, (Shape{4, 2, 3}));
  EXPECT_THROW(b.permute(x, {0, 0, 1}), Error);
  ValueId y = in(DType::F32, {1, 3, 1});
  EXPECT_EQ(g.type(b.expand(y, {2, 3, 4})).shape, (Shape{2, 3, 4}));
  EXPECT_THROW(b.expand(x, {2, 3, 5}), Error);
  EXPECT_EQ(g.type(b.slice(x, {0, 1, 0}, {2, 1, 2}, {1, 1, 2})).shape, (Shape{2, 1, 2}));
  EXPECT_NE(error_of([&] {
              b.slice(x, {0, 2, 0}, {2, 2, 4}, {1, 1, 1});
            }).find("out of bounds"),
            std::string::npos);
  EXPECT_EQ(g.type(b.pad(x, {1, 0, 0}, {0, 2, 0}, Scalar::from_int(0))).shape, (Shape{3, 5, 4}));
  EXPECT_THROW(b.pad(x, {-1, 0, 0}, {0, 0, 0}, Scalar::from_int(0)), Error);
  EXPECT_EQ(g.type(b.flip(x, {0, 2})).shape, (Shape{2, 3, 4}));
}

TEST_F(BuilderTest, ConcatMatmulGatherScatterSort) {
  ValueId a = in(DType::F32, {2, 3});
  ValueId c = in(DType::F32, {4, 3});
  EXPECT_EQ(g.type(b.concat({a, c}, 0)).shape, (Shape{6, 3}));
  EXPECT_NE(error_of([&] {
              b.concat({a, c}, 1);
            }).find("do not match outside dim 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { b.concat({}, 0); }).find("cat: needs at least one tensor"),
            std::string::npos);
  ValueId m = in(DType::F32, {5, 1, 2, 3});
  ValueId n = in(DType::F32, {1, 4, 3, 7});
  EXPECT_EQ(g.type(b.matmul(m, n)).shape, (Shape{5, 4, 2, 7}));
  EXPECT_NE(
      error_of([&] { b.matmul(a, c); }).find("matmul: inner dims differ: f32[2, 3] and f32[4, 3]"),
      std::string::npos);
  ValueId idx = in(DType::I64, {2, 5});
  EXPECT_EQ(g.type(b.gather(a, 1, idx)).shape, (Shape{2, 5}));
  EXPECT_THROW(b.gather(a, 1, in(DType::F32, {2, 2})), Error);
  ValueId vals = in(DType::F32, {2, 5});
  EXPECT_EQ(g.type(b.scatter_add(a, 1, idx, vals)).shape, (Shape{2, 3}));
  EXPECT_EQ(g.type(b.sort(a, 1, true, true, DType::I64)).dtype, DType::I64);
}

TEST_F(BuilderTest, CollectiveShapesFollowTheRanks) {
  ValueId x = in(DType::F32, {6, 2});
  CollectiveAttrs a{CollectiveKind::AllReduce, CollectiveReduce::Mean, 0, 1, 3};
  EXPECT_EQ(g.type(b.collective(x, a)).shape, (Shape{6, 2}));
  a.kind = CollectiveKind::AllGather;
  EXPECT_EQ(g.type(b.collective(x, a)).shape, (Shape{18, 2}));
  a.kind = CollectiveKind::ReduceScatter;
  EXPECT_EQ(g.type(b.collective(x, a)).shape, (Shape{2, 2}));
  a.ranks = 4;
  EXPECT_NE(error_of([&] { b.collective(x, a); }).find("reduce_scatter: dim 0 of [6, 2]"),
            std::string::npos);
  a.kind = CollectiveKind::Broadcast;
  a.root = 4;
  EXPECT_NE(error_of([&] { b.collective(x, a); }).find("broadcast: root 4 of 4 ranks"),
            std::string::npos);
  a.kind = CollectiveKind::AllReduce;
  ValueId flags = in(DType::Bool, {3});
  EXPECT_NE(error_of([&] { b.collective(flags, a); }).find("bool"), std::string::npos);
}

TEST_F(BuilderTest, OpScopeNamesTheUserOp) {
  OpScope scope("softmax");
  ValueId x = in(DType::F32, {2, 3});
  ValueId y = in(DType::F32, {2, 4});
  EXPECT_NE(error_of([&] { b.binary(BinaryFn::Sub, x, y); }).find("softmax (sub): shapes"),
            std::string::npos);
}

TEST_F(BuilderTest, PruneKeepsOnlyWhatOutputsNeed) {
  ValueId x = in(DType::F32, {2});
  ValueId dead = b.unary(UnaryFn::Exp, x);
  ValueId y = b.unary(UnaryFn::Neg, x);
  (void)dead;
  std::vector<ValueId> outs{y};
  std::vector<ValueId> map;
  Graph p = g.prune(outs, &map);
  EXPECT_EQ(p.size(), 2);
  EXPECT_EQ(outs[0], 1);
  EXPECT_EQ(map[dead], -1);
  EXPECT_EQ(p.node(1).inputs, ValueIds{0});
}

}  // namespace
}  // namespace ember::ir
