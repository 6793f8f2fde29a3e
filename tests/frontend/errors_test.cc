// Misuse of the API: each case throws ember::Error whose message names the op and the shapes
// (or ranks/dtypes) involved, either when the op is recorded or, for data-dependent checks, when
// its data is read. Afterwards other tensors and the stream keep working.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

// A tensor recorded before the error (still pending), checked afterwards together with a tensor
// recorded after it: neither is disturbed by the failed op.
class Witness {
 public:
  Witness() : pending_(Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, Device::cpu()) * 2.0 - 1.0) {}

  void check() const {
    expect_tensor(pending_, Shape{2, 2}, {1, 3, 5, 7});
    auto fresh = Tensor<1, Int>::from_data({1, 2, 3}, Device::cpu()).flip({0}) * 10;
    expect_tensor(fresh, Shape{3}, {30, 20, 10});
    auto m = Tensor<2>::from_data({{1.0, 2.0}}, Device::cpu());
    expect_tensor(m.transpose().matmul(m), Shape{2, 2}, {1, 2, 2, 4});
  }

 private:
  Tensor<2> pending_;
};

Tensor<2> mat(int64_t rows, int64_t cols) {
  std::vector<float> v(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return Tensor<2>::from_data(TensorData(v, Shape{rows, cols}), Device::cpu());
}

// ---------------------------------------------------------------- mismatched shapes

TEST(Errors, AddShapesDoNotBroadcast) {
  Witness w;
  auto a = mat(2, 3);
  auto b = mat(3, 2);
  expect_error([&] { auto c = a + b; }, {"add", "[2, 3]", "[3, 2]", "do not broadcast"});
  expect_tensor(a + 1.0, Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  w.check();
}

TEST(Errors, FromBytesOfTheWrongSize) {
  Witness w;
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  auto bytes = std::as_bytes(std::span(v));
  expect_error(
      [&] {
        Tensor<2>::from_bytes(bytes.first(20), DType::F32, Shape{2, 3});
      },
      {"from_bytes", "20 bytes", "f32", "[2, 3]", "24"});
  expect_error([&] { Tensor<2>::from_bytes(bytes, DType::F32, Shape{6}); }, {"from_bytes"});
  // The right size uploads the values; a kind that does not take the dtype converts them.
  expect_tensor(Tensor<2>::from_bytes(bytes, DType::F32, Shape{3, 2}, Device::cpu()), Shape{3, 2},
                {1, 2, 3, 4, 5, 6});
  expect_tensor(Tensor<1, Int>::from_bytes(bytes, DType::F32, Shape{6}, Device::cpu()), Shape{6},
                {1, 2, 3, 4, 5, 6});
  w.check();
}

TEST(Errors, AddRanksDiffer) {
  Witness w;
  auto a = mat(2, 3);
  auto b = Tensor<3>::ones({1, 2, 3}, Device::cpu());
  expect_error([&] { ops::binary(ir::BinaryFn::Add, a.raw(), b.raw()); },
               {"add", "ranks differ", "[2, 3]", "[1, 2, 3]"});
  w.check();
}

TEST(Errors, MatmulInnerDimsDiffer) {
  Witness w;
  auto a = mat(2, 3);
  auto b = mat(4, 2);
  expect_error([&] { auto c = a.matmul(b); }, {"matmul", "inner dims", "[2, 3]", "[4, 2]"});
  expect_tensor(a.matmul(mat(3, 1)), Shape{2, 1}, {0 * 0 + 1 * 1 + 2 * 2, 3 * 0 + 4 * 1 + 5 * 2});
  w.check();
}

TEST(Errors, MatmulBatchDimsDoNotBroadcast) {
  Witness w;
  auto a = Tensor<3>::ones({2, 2, 3}, Device::cpu());
  auto b = Tensor<3>::ones({3, 3, 2}, Device::cpu());
  expect_error([&] { auto c = a.matmul(b); }, {"matmul", "batch dims", "[2, 2, 3]", "[3, 3, 2]"});
  w.check();
}

TEST(Errors, CatShapesDiffer) {
  Witness w;
  auto a = mat(2, 3);
  auto b = mat(2, 4);
  expect_error(
      [&] {
        Tensor<2>::cat({a, b}, 0);
      },
      {"cat", "[2, 3]", "[2, 4]", "do not match outside dim 0"});
  // Along dim 1 they do fit.
  EXPECT_EQ(Tensor<2>::cat({a, b}, 1).dims()[1], 7);
  w.check();
}

TEST(Errors, CatDimOutOfRange) {
  Witness w;
  auto a = mat(2, 3);
  expect_error([&] { Tensor<2>::cat({a, a}, 2); }, {"cat", "dim 2", "rank 2"});
  w.check();
}

TEST(Errors, StackShapesDiffer) {
  Witness w;
  auto a = Tensor<1>::ones({2}, Device::cpu());
  auto b = Tensor<1>::ones({3}, Device::cpu());
  expect_error([&] { Tensor<1>::stack({a, b}, 0); }, {"stack", "[2]", "[3]"});
  w.check();
}

TEST(Errors, ExpandIncompatibleShape) {
  Witness w;
  auto a = mat(2, 3);
  expect_error([&] { a.expand({4, 3}); }, {"expand", "[2, 3]", "[4, 3]"});
  expect_error([&] { a.expand<1>(Shape{6}); }, {"expand", "[2, 3]", "fewer dims"});
  w.check();
}

TEST(Errors, ExpandMinusOneInNewLeadingDim) {
  // -1 means "keep this dim's size", but a new leading dim has no size to keep (torch rejects it
  // too).
  Witness w;
  auto v = Tensor<1>::from_data({1.0, 2.0}, Device::cpu());
  expect_error([&] { v.expand({-1, 2}); }, {"expand", "-1"});
  w.check();
}

TEST(Errors, SliceAssignValuesDoNotFit) {
  Witness w;
  auto x = mat(3, 4);
  auto v = mat(2, 2);
  expect_error(
      [&] {
        x.slice_assign({Range(0, 2), Range(0, 3)}, v);
      },
      {"slice_assign", "[2, 2]", "[3, 4]", "dim 1"});
  w.check();
}

TEST(Errors, SliceAssignValuesOfOtherDtype) {
  Witness w;
  auto x = Tensor<2, Int>::zeros({2, 2}, Device::cpu());
  auto v =
      Tensor<2, Int>::from_data(TensorData(std::vector<int64_t>{1, 2}, Shape{1, 2}), Device::cpu());
  expect_error([&] { x.slice_assign({Range::at(0)}, v); },
               {"slice_assign", "i64[1, 2]", "i32[2, 2]"});
  w.check();
}

// ---------------------------------------------------------------- invalid dims

TEST(Errors, ReduceDimOutOfRange) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.sum_dim(2); }, {"sum", "dim 2", "rank 2"});
  w.check();
}

TEST(Errors, NegativeDimBeyondRank) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.swap_dims(-3, 0); }, {"swap_dims", "dim -3", "rank 2"});
  expect_error([&] { x.flip({-3}); }, {"flip", "dim -3", "rank 2"});
  expect_error([&] { x.narrow(-3, 0, 1); }, {"narrow", "dim -3", "rank 2"});
  w.check();
}

TEST(Errors, PermuteAxesOutOfRange) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.permute({0, 2}); }, {"permute", "dim 2", "rank 2"});
  w.check();
}

TEST(Errors, PermuteRepeatedAxes) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.permute({1, 1}); }, {"permute", "[1, 1]", "not a permutation", "[2, 3]"});
  w.check();
}

TEST(Errors, FlipRepeatedAxis) {
  // A repeated axis is rejected, as in torch and Burn ("dim 0 appears multiple times").
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.flip({0, 0}); }, {"flip", "0"});
  expect_error([&] { x.flip({1, -1}); }, {"flip"});
  w.check();
}

TEST(Errors, UnsqueezeDimOutOfRange) {
  Witness w;
  auto x = mat(2, 3);
  // The new dim may be 0..2 (rank 3 after the insertion).
  expect_error([&] { x.unsqueeze_dim(4); }, {"unsqueeze_dim", "dim 4", "rank 3"});
  w.check();
}

TEST(Errors, FlattenStartAfterEnd) {
  Witness w;
  auto x = Tensor<3>::ones({2, 3, 4}, Device::cpu());
  expect_error([&] { x.flatten<2>(2, 1); }, {"flatten", "start dim 2", "end dim 1"});
  w.check();
}

// ---------------------------------------------------------------- reshape

TEST(Errors, ReshapeWrongElementCount) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.reshape({4, 2}); }, {"reshape", "[2, 3]", "[4, 2]", "6 elements"});
  w.check();
}

TEST(Errors, ReshapeInferredSizeNotDivisible) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.reshape({4, -1}); }, {"reshape", "[2, 3]", "[4, -1]"});
  w.check();
}

TEST(Errors, ReshapeTwoInferredDims) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.reshape({-1, -1}); }, {"reshape", "only one dim may be -1", "[-1, -1]"});
  w.check();
}

TEST(Errors, ReshapeNegativeSize) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.reshape({-2, -3}); }, {"reshape", "negative size", "[-2, -3]"});
  w.check();
}

// ---------------------------------------------------------------- slices

TEST(Errors, SliceEndBeyondDim) {
  Witness w;
  auto x = mat(3, 4);
  expect_error([&] { x.slice({Range(0, 5)}); }, {"slice", "0..5", "dim 0", "[3, 4]"});
  w.check();
}

TEST(Errors, SliceNegativeStartBeyondDim) {
  Witness w;
  auto x = mat(3, 4);
  expect_error(
      [&] {
        x.slice({Range::all(), Range(-5, 2)});
      },
      {"slice", "-5..2", "dim 1", "[3, 4]"});
  w.check();
}

TEST(Errors, SliceZeroStep) {
  Witness w;
  auto x = mat(3, 4);
  expect_error([&] { x.slice({Range(0, 3, 0)}); }, {"slice", "step must not be 0", "[3, 4]"});
  w.check();
}

TEST(Errors, SliceTooManyRanges) {
  Witness w;
  auto x = mat(3, 4);
  expect_error(
      [&] {
        x.slice({Range::all(), Range::all(), Range::all()});
      },
      {"slice", "3 ranges", "rank-2"});
  w.check();
}

TEST(Errors, NarrowOutOfRange) {
  Witness w;
  auto x = mat(4, 3);
  expect_error([&] { x.narrow(0, 2, 3); }, {"narrow", "start 2", "length 3", "[4, 3]"});
  w.check();
}

TEST(Errors, SliceFillRangeOutOfBounds) {
  Witness w;
  auto x = mat(3, 4);
  expect_error([&] { x.slice_fill({Range(0, 9)}, 1.0); }, {"slice", "0..9", "[3, 4]"});
  w.check();
}

// ---------------------------------------------------------------- wrong rank for the target D

TEST(Errors, FromDataRankDiffersFromTarget) {
  Witness w;
  TensorData d(std::vector<float>{1, 2, 3});
  expect_error([&] { Tensor<2>::from_data(d, Device::cpu()); },
               {"from_data", "wrong rank", "Tensor<2>", "[3]"});
  expect_tensor(Tensor<1>::from_data(d, Device::cpu()), Shape{3}, {1, 2, 3});
  w.check();
}

TEST(Errors, ZerosShapeRankDiffersFromTarget) {
  Witness w;
  expect_error(
      [&] {
        Tensor<3>::zeros({2, 3}, Device::cpu());
      },
      {"zeros", "wrong rank", "Tensor<3>", "[2, 3]"});
  w.check();
}

TEST(Errors, ReshapeToShapeOfOtherRank) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.reshape<2>(Shape{6}); }, {"wrong rank", "Tensor<2>", "[6]"});
  // The message names the reshape the user called, not the Tensor constructor.
  expect_error([&] { x.reshape<2>(Shape{6}); }, {"reshape"});
  w.check();
}

TEST(Errors, PrimitiveOfWrongKind) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { Tensor<2, Int>::from_primitive(x.into_primitive()); },
               {"dtype f32", "not of kind Int"});
  w.check();
}

// ---------------------------------------------------------------- empty lists

TEST(Errors, CatOfNoTensors) {
  Witness w;
  expect_error([] { Tensor<2>::cat({}, 0); }, {"cat", "at least one tensor"});
  w.check();
}

TEST(Errors, StackOfNoTensors) {
  Witness w;
  expect_error([] { Tensor<2>::stack({}, 0); }, {"stack", "at least one tensor"});
  w.check();
}

// ---------------------------------------------------------------- index out of range (execution)

TEST(Errors, GatherIndexOutOfRangeAtRead) {
  Device cpu = Device::cpu();
  Witness w;
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto idx = Tensor<2, Int>::from_data({{0, 2}, {1, 0}}, cpu);
  // Recording succeeds: the index values are only checked when the data is computed.
  auto bad = x.gather(1, idx);
  auto sibling = x * 3.0;
  expect_error([&] { bad.to_data(); }, {"gather", "index 2", "dim 1", "size 2", "f32[2, 2]"});
  expect_tensor(sibling, Shape{2, 2}, {3, 6, 9, 12});
  // Using the failed tensor again reports the original failure.
  expect_error([&] { auto again = bad + 1.0; }, {"gather", "index 2"});
  expect_tensor(x.gather(1, Tensor<2, Int>::from_data({{1, 1}, {0, 1}}, cpu)), Shape{2, 2},
                {2, 2, 3, 4});
  w.check();
}

TEST(Errors, GatherNegativeIndexAtRead) {
  Device cpu = Device::cpu();
  Witness w;
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  auto bad = x.gather(0, Tensor<1, Int>::from_data({0, -1}, cpu));
  expect_error([&] { bad.to_data(); }, {"gather", "index -1", "size 3"});
  w.check();
}

TEST(Errors, SelectIndexOutOfRangeAtRead) {
  Device cpu = Device::cpu();
  Witness w;
  auto x = mat(3, 2);
  auto bad = x.select(0, Tensor<1, Int>::from_data({0, 3}, cpu));
  EXPECT_EQ(bad.shape(), (Shape{2, 2}));
  auto dependent = bad.sum();
  expect_error([&] { dependent.to_data(); }, {"index 3", "dim 0", "size 3", "[3, 2]"});
  // The execution error names select, not only the gather primitive select lowers to.
  expect_error([&] { bad.to_data(); }, {"select"});
  expect_tensor(x.select(0, Tensor<1, Int>::from_data({2, 0}, cpu)), Shape{2, 2}, {4, 5, 0, 1});
  w.check();
}

// ---------------------------------------------------------------- unsupported dtypes

TEST(Errors, ExpOnIntTensor) {
  Witness w;
  auto i = Tensor<2, Int>::from_data({{1, 2}}, Device::cpu());
  expect_error([&] { ops::unary(ir::UnaryFn::Exp, i.raw()); }, {"exp", "float", "i32"});
  expect_tensor(i.float_().exp(), Shape{1, 2}, {std::exp(1.0), std::exp(2.0)});
  w.check();
}

TEST(Errors, BitwiseOnFloatTensors) {
  Witness w;
  auto f = mat(2, 2);
  expect_error([&] { ops::binary(ir::BinaryFn::BitAnd, f.raw(), f.raw()); },
               {"bit_and", "int", "f32"});
  expect_error([&] { ops::unary(ir::UnaryFn::BitwiseNot, f.raw()); }, {"bitwise_not", "f32"});
  w.check();
}

TEST(Errors, BoolArithmetic) {
  Witness w;
  auto b = Tensor<1, Bool>::from_data({true, false}, Device::cpu());
  expect_error([&] { auto c = b + b; }, {"add", "bool"});
  expect_error([&] { b.sum(); }, {"sum", "bool"});
  expect_error([&] { ops::unary(ir::UnaryFn::Neg, b.raw()); }, {"neg", "bool"});
  expect_tensor(b.bool_not(), Shape{2}, {0, 1});
  w.check();
}

TEST(Errors, BinaryDtypesDiffer) {
  Witness w;
  auto f = Tensor<1>::ones({2}, Device::cpu());
  auto i = Tensor<1, Int>::ones({2}, Device::cpu());
  expect_error([&] { ops::binary(ir::BinaryFn::Mul, f.raw(), i.raw()); },
               {"mul", "dtypes differ", "f32", "i32"});
  w.check();
}

// ---------------------------------------------------------------- integer division by zero

TEST(Errors, IntegerDivisionByZeroAtRead) {
  Device cpu = Device::cpu();
  Witness w;
  auto a = Tensor<1, Int>::from_data({4, 6}, cpu);
  auto b = Tensor<1, Int>::from_data({2, 0}, cpu);
  auto q = a / b;  // recorded fine; fails when computed
  auto sibling = a * b;
  expect_error([&] { q.to_data(); }, {"div", "division by zero"});
  expect_tensor(sibling, Shape{2}, {8, 0});
  expect_tensor(a / Tensor<1, Int>::from_data({2, 3}, cpu), Shape{2}, {2, 2});
  w.check();
}

TEST(Errors, IntegerRemainderByZeroAtRead) {
  Device cpu = Device::cpu();
  Witness w;
  auto a = Tensor<1, Int>::from_data({4, 6}, cpu);
  auto r = a.rem_scalar(0);
  expect_error([&] { r.to_data(); }, {"rem", "division by zero"});
  expect_tensor(a.rem_scalar(4), Shape{2}, {0, 2});
  w.check();
}

// ---------------------------------------------------------------- squeeze

TEST(Errors, SqueezeOfDimNotOne) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.squeeze(1); }, {"squeeze", "dim 1", "[2, 3]", "not 1"});
  w.check();
}

TEST(Errors, SqueezeDimsOfDimNotOne) {
  Witness w;
  auto x = Tensor<3>::ones({2, 1, 3}, Device::cpu());
  expect_error([&] { x.squeeze_dims<1>({1, 2}); }, {"squeeze_dims", "dim 2", "[2, 1, 3]", "not 1"});
  w.check();
}

// ---------------------------------------------------------------- ragged nested lists

TEST(Errors, RaggedNestedListRank2) {
  Witness w;
  expect_error(
      [] {
        Tensor<2>::from_data({{1.0, 2.0}, {3.0}}, Device::cpu());
      },
      {"from_data", "ragged", "1 elements at depth 1", "sibling has 2"});
  w.check();
}

TEST(Errors, RaggedNestedListRank3) {
  Witness w;
  expect_error(
      [] {
        Tensor<3, Int>::from_data({{{1, 2}, {3, 4}}, {{5, 6}}}, Device::cpu());
      },
      {"from_data", "ragged", "depth 1"});
  expect_error(
      [] {
        Tensor<3, Bool>::from_data({{{true}, {false, true}}}, Device::cpu());
      },
      {"from_data", "ragged", "depth 2"});
  w.check();
}

// ---------------------------------------------------------------- other argument checks

TEST(Errors, SplitWithSizesNotSummingToDim) {
  Witness w;
  auto x = Tensor<1>::ones({3}, Device::cpu());
  expect_error([&] { x.split_with_sizes({1, 1}, 0); }, {"split_with_sizes", "[1, 1]", "[3]"});
  w.check();
}

TEST(Errors, ChunkCountNotPositive) {
  Witness w;
  auto x = Tensor<1>::ones({3}, Device::cpu());
  expect_error([&] { x.chunk(0, 0); }, {"chunk", "positive", "0"});
  w.check();
}

TEST(Errors, RollShiftsAndDimsDiffer) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.roll({1, 2}, {0}); }, {"roll", "2 shifts", "1 dims"});
  w.check();
}

TEST(Errors, PadTooManyPairsOrCrop) {
  Witness w;
  auto x = mat(2, 3);
  expect_error([&] { x.pad({{0, 0}, {0, 0}, {1, 1}}, 0.0); }, {"pad", "3 pad pairs", "[2, 3]"});
  expect_error([&] { x.pad({{-2, -2}}, 0.0); }, {"pad", "cropping", "[2, 3]"});
  w.check();
}

TEST(Errors, IntoScalarOfManyElements) {
  Witness w;
  auto x = Tensor<1>::ones({2}, Device::cpu());
  expect_error([&] { x.into_scalar(); }, {"into_scalar", "[2]"});
  EXPECT_EQ(x.slice({Range::at(0)}).into_scalar(), 1.0);
  w.check();
}

TEST(Errors, TensorDataValueCountMismatch) {
  Witness w;
  expect_error(
      [] {
        TensorData(std::vector<float>{1, 2, 3}, Shape{2, 2});
      },
      {"TensorData", "3 values", "[2, 2]"});
  w.check();
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Element or byte counts past int64 are rejected when recorded (they used to wrap to 0: ones of
// [2^32, 2^32] read back as an empty tensor, and views of it crashed the CPU backend).
TEST(ShapeOverflow, CountsPastInt64AreErrors) {
  const int64_t big = int64_t{1} << 32;
  testing::expect_error(
      [&] {
        Tensor<2>::ones(Shape{big, big}, Device::cpu());
      },
      {"full", "[4294967296, 4294967296]", "int64"});
  // Fits as elements, not as bytes: 2^62 f32 elements are 2^64 bytes.
  testing::expect_error([&] { Tensor<1>::zeros(Shape{int64_t{1} << 62}, Device::cpu()); },
                        {"int64"});
  auto t = Tensor<2>::ones(Shape{2, 1}, Device::cpu());
  testing::expect_error([&] { t.expand<2>(Shape{2, int64_t{1} << 62}); }, {"int64"});
  testing::expect_error(
      [&] {
        Tensor<3>::zeros(Shape{0, big, big}, Device::cpu()).reshape<2>(Shape{big, big * 4});
      },
      {"int64"});
  // The stream is still usable.
  EXPECT_EQ((t + 5.0).sum().into_scalar<float>(), 12.0f);
}

}  // namespace
}  // namespace ember
