// The Numeric table of the Burn Book (ops of Float and Int tensors). Expected values are worked
// out by hand or with plain loops, following PyTorch's equivalents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

using testing::kInf;
using testing::kNaN;

// ---------------------------------------------------------------- creation

TEST(NumericCreate, Eye) {
  Device cpu = Device::cpu();
  auto f = Tensor<2>::eye(3, cpu);
  EXPECT_EQ(f.dtype(), DType::F32);
  expect_tensor(f, Shape{3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  auto i = Tensor<2, Int>::eye(2, cpu);
  EXPECT_EQ(i.dtype(), DType::I32);
  expect_tensor(i, Shape{2, 2}, {1, 0, 0, 1});
  expect_tensor(Tensor<2>::eye(1, cpu), Shape{1, 1}, {1});
}

TEST(NumericCreate, FullOnesZeros) {
  Device cpu = Device::cpu();
  auto f = Tensor<2>::full({2, 3}, 7.5, cpu);
  EXPECT_EQ(f.dtype(), DType::F32);
  expect_tensor(f, Shape{2, 3}, {7.5, 7.5, 7.5, 7.5, 7.5, 7.5});
  auto fi = Tensor<1, Int>::full({3}, -4, cpu);
  EXPECT_EQ(fi.dtype(), DType::I32);
  expect_tensor(fi, Shape{3}, {-4, -4, -4});
  auto f64 = Tensor<1>::full({2}, 0.1, cpu, DType::F64);
  EXPECT_EQ(f64.dtype(), DType::F64);
  EXPECT_EQ(f64.to_data().to_vec<double>()[0], 0.1);  // exact in f64
  expect_tensor(Tensor<3>::ones({1, 2, 2}, cpu), Shape{1, 2, 2}, {1, 1, 1, 1});
  expect_tensor(Tensor<2, Int>::zeros({2, 2}, cpu), Shape{2, 2}, {0, 0, 0, 0});
  auto e = Tensor<1>::zeros({0}, cpu);
  EXPECT_EQ(e.num_elements(), 0);
  EXPECT_EQ(e.shape(), (Shape{0}));
}

TEST(NumericCreate, LikeFormsKeepShapeDtype) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::full({2, 2}, 3.0, cpu, DType::F64);
  auto z = x.zeros_like();
  EXPECT_EQ(z.dtype(), DType::F64);
  expect_tensor(z, Shape{2, 2}, {0, 0, 0, 0});
  auto o = x.ones_like();
  EXPECT_EQ(o.dtype(), DType::F64);
  expect_tensor(o, Shape{2, 2}, {1, 1, 1, 1});
  auto f = x.full_like(-2.5);
  EXPECT_EQ(f.dtype(), DType::F64);
  expect_tensor(f, Shape{2, 2}, {-2.5, -2.5, -2.5, -2.5});
  auto xi = Tensor<1, Int>::from_ints({1, 2, 3}, cpu);
  auto fi = xi.full_like(9);
  EXPECT_EQ(fi.dtype(), DType::I32);
  expect_tensor(fi, Shape{3}, {9, 9, 9});
}

// ---------------------------------------------------------------- arithmetic

TEST(NumericArith, Abs) {
  Device cpu = Device::cpu();
  expect_tensor(Tensor<1>::from_data({-1.5, 0.0, 2.0, -kInf}, cpu).abs(), Shape{4},
                {1.5, 0, 2, kInf});
  expect_tensor(Tensor<1, Int>::from_ints({-3, 0, 4}, cpu).abs(), Shape{3}, {3, 0, 4});
}

TEST(NumericArith, TensorTensor) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto b = Tensor<2>::from_data({{0.5, -2.0}, {4.0, 8.0}}, cpu);
  expect_tensor(a.add(b), Shape{2, 2}, {1.5, 0, 7, 12});
  expect_tensor(a.sub(b), Shape{2, 2}, {0.5, 4, -1, -4});
  expect_tensor(a.mul(b), Shape{2, 2}, {0.5, -4, 12, 32});
  expect_tensor(a.div(b), Shape{2, 2}, {2, -1, 0.75, 0.5});
  expect_tensor(a + b, Shape{2, 2}, {1.5, 0, 7, 12});
  expect_tensor(a - b, Shape{2, 2}, {0.5, 4, -1, -4});
  expect_tensor(a * b, Shape{2, 2}, {0.5, -4, 12, 32});
  expect_tensor(a / b, Shape{2, 2}, {2, -1, 0.75, 0.5});
  expect_tensor(-a, Shape{2, 2}, {-1, -2, -3, -4});
}

TEST(NumericArith, ScalarForms) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 2.0, 4.0}, cpu);
  expect_tensor(x.add_scalar(1.5), Shape{3}, {2.5, 3.5, 5.5});
  expect_tensor(x.sub_scalar(1), Shape{3}, {0, 1, 3});
  expect_tensor(x.mul_scalar(-2), Shape{3}, {-2, -4, -8});
  expect_tensor(x.div_scalar(4.0), Shape{3}, {0.25, 0.5, 1});
  expect_tensor(x + 1.0, Shape{3}, {2, 3, 5});
  expect_tensor(x - 1.0, Shape{3}, {0, 1, 3});
  expect_tensor(x * 3.0, Shape{3}, {3, 6, 12});
  expect_tensor(x / 2.0, Shape{3}, {0.5, 1, 2});
  expect_tensor(3.0 + x, Shape{3}, {4, 5, 7});
  expect_tensor(3.0 * x, Shape{3}, {3, 6, 12});
  // scalar - tensor and scalar / tensor keep the operand order.
  expect_tensor(10.0 - x, Shape{3}, {9, 8, 6});
  expect_tensor(1.0 / x, Shape{3}, {1, 0.5, 0.25});
  expect_tensor(8 / x, Shape{3}, {8, 4, 2});
  auto xi = Tensor<1, Int>::from_ints({1, 2, 5}, cpu);
  expect_tensor(10 - xi, Shape{3}, {9, 8, 5});
  expect_tensor(10 / xi, Shape{3}, {10, 5, 2});
  expect_tensor(xi * 3, Shape{3}, {3, 6, 15});
  EXPECT_EQ((xi + 1).dtype(), DType::I32);
}

TEST(NumericArith, DivByZeroFloat) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, -1.0, 0.0}, cpu);
  expect_tensor(x / 0.0, Shape{3}, {kInf, -kInf, kNaN});
}

TEST(NumericArith, BroadcastSizeOneDims) {
  Device cpu = Device::cpu();
  auto col = Tensor<2>::from_data({{1.0}, {2.0}}, cpu);                       // [2, 1]
  auto row = Tensor<2>::from_data({{10.0, 20.0, 30.0}}, cpu);                 // [1, 3]
  auto full = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, cpu);  // [2, 3]
  expect_tensor(col + row, Shape{2, 3}, {11, 21, 31, 12, 22, 32});
  expect_tensor(row - col, Shape{2, 3}, {9, 19, 29, 8, 18, 28});
  expect_tensor(full * row, Shape{2, 3}, {10, 40, 90, 40, 100, 180});
  expect_tensor(row * full, Shape{2, 3}, {10, 40, 90, 40, 100, 180});
  expect_tensor(full / col, Shape{2, 3}, {1, 2, 3, 2, 2.5, 3});
  expect_tensor(col / full, Shape{2, 3}, {1, 0.5, 1.0 / 3, 0.5, 0.4, 1.0 / 3});
  // Rank 3 with size-1 dims on both sides: [2, 1, 3] op [1, 2, 1].
  std::vector<double> av = {1, 2, 3, 4, 5, 6}, bv = {100, 200};
  auto a =
      Tensor<3>::from_data(TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 1, 3}), cpu);
  auto b = Tensor<3>::from_data(TensorData(std::vector<float>{100, 200}, Shape{1, 2, 1}), cpu);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) want.push_back(av[i * 3 + k] + bv[j]);
  expect_tensor(a + b, Shape{2, 2, 3}, want);
  // Comparisons broadcast too.
  expect_tensor(full.greater(col.mul_scalar(2.0)), Shape{2, 3}, {0, 0, 1, 0, 1, 1});
  expect_error([&] { auto bad = full + Tensor<2>::ones({3, 2}, cpu); }, {});
}

TEST(NumericArith, IntDivTruncatesRemFollowsDivisor) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::from_ints({7, -7, 7, -7, 6}, cpu);
  auto b = Tensor<1, Int>::from_ints({2, 2, -2, -2, 3}, cpu);
  expect_tensor(a / b, Shape{5}, {3, -3, -3, 3, 2});
  expect_tensor(a.div_scalar(2), Shape{5}, {3, -3, 3, -3, 3});
  auto c = Tensor<1, Int>::from_ints({3, 3, -3, -3, 3}, cpu);
  // PyTorch's %: the result has the sign of the divisor.
  expect_tensor(a % c, Shape{5}, {1, 2, -2, -1, 0});
  expect_tensor(a.rem(c), Shape{5}, {1, 2, -2, -1, 0});
  expect_tensor(a.rem_scalar(3), Shape{5}, {1, 2, 1, 2, 0});
  expect_tensor(a % -3, Shape{5}, {-2, -1, -2, -1, 0});
}

TEST(NumericArith, FloatRemSignOfDivisor) {
  Device cpu = Device::cpu();
  auto a = Tensor<1>::from_data({5.5, -5.5, 5.5, -5.5, 4.0}, cpu);
  auto b = Tensor<1>::from_data({2.0, 2.0, -2.0, -2.0, 2.0}, cpu);
  // Python: 5.5 % 2 = 1.5, -5.5 % 2 = 0.5, 5.5 % -2 = -0.5, -5.5 % -2 = -1.5.
  expect_tensor(a % b, Shape{5}, {1.5, 0.5, -0.5, -1.5, 0});
  expect_tensor(a.rem_scalar(2.0), Shape{5}, {1.5, 0.5, 1.5, 0.5, 0});
  expect_tensor(a % -2.0, Shape{5}, {-0.5, -1.5, -0.5, -1.5, 0});
  // torch.remainder(x, 0.) is NaN.
  expect_tensor(a.rem_scalar(0.0), Shape{5}, {kNaN, kNaN, kNaN, kNaN, kNaN});
}

TEST(NumericArith, Neg) {
  Device cpu = Device::cpu();
  expect_tensor(Tensor<1>::from_data({1.0, -2.5, 0.0}, cpu).neg(), Shape{3}, {-1, 2.5, 0});
  expect_tensor(-Tensor<1, Int>::from_ints({4, -5}, cpu), Shape{2}, {-4, 5});
}

TEST(NumericArith, Sign) {
  Device cpu = Device::cpu();
  expect_tensor(Tensor<1>::from_data({-3.5, 0.0, 2.0, -kInf, kInf}, cpu).sign(), Shape{5},
                {-1, 0, 1, -1, 1});
  expect_tensor(Tensor<1, Int>::from_ints({-7, 0, 9}, cpu).sign(), Shape{3}, {-1, 0, 1});
}

TEST(NumericArith, Pow) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0, -2.0}, cpu);
  auto e = Tensor<1>::from_data({2.0, 3.0, 0.5, 2.0}, cpu);
  expect_tensor(x.powf(e), Shape{4}, {1, 8, std::sqrt(3.0), 4});
  expect_tensor(x.powf_scalar(2.0), Shape{4}, {1, 4, 9, 4});
  expect_tensor(x.powf_scalar(0.5), Shape{4}, {1, std::sqrt(2.0), std::sqrt(3.0), kNaN});
  expect_tensor(x.powf_scalar(-1.0), Shape{4}, {1, 0.5, 1.0 / 3, -0.5});
  // Integer powers of negative bases are real.
  expect_tensor(x.powi_scalar(3), Shape{4}, {1, 8, 27, -8});
  expect_tensor(x.powi(Tensor<1, Int>::from_ints({0, 2, 1, 3}, cpu)), Shape{4}, {1, 4, 3, -8});
  // torch.pow: 0^0 = 1, 0^-1 = inf, 1^NaN = 1 (C pow).
  auto z = Tensor<1>::from_data({0.0, 0.0, 1.0}, cpu);
  expect_tensor(z.powf(Tensor<1>::from_data({0.0, -1.0, kNaN}, cpu)), Shape{3}, {1, kInf, 1});
  auto xi = Tensor<1, Int>::from_ints({2, 3, -2}, cpu);
  auto yi = xi.powi_scalar(3);
  EXPECT_EQ(yi.dtype(), DType::I32);
  expect_tensor(yi, Shape{3}, {8, 27, -8});
  expect_tensor(xi.powi(Tensor<1, Int>::from_ints({10, 0, 2}, cpu)), Shape{3}, {1024, 1, 4});
}

// ---------------------------------------------------------------- comparisons and predicates

TEST(NumericCompare, TensorForms) {
  Device cpu = Device::cpu();
  auto a = Tensor<1>::from_data({1.0, 2.0, 3.0, kNaN}, cpu);
  auto b = Tensor<1>::from_data({2.0, 2.0, 1.0, kNaN}, cpu);
  auto eq = a.equal(b);
  EXPECT_EQ(eq.dtype(), DType::Bool);
  expect_tensor(eq, Shape{4}, {0, 1, 0, 0});
  expect_tensor(a.not_equal(b), Shape{4}, {1, 0, 1, 1});
  expect_tensor(a.greater(b), Shape{4}, {0, 0, 1, 0});
  expect_tensor(a.greater_equal(b), Shape{4}, {0, 1, 1, 0});
  expect_tensor(a.lower(b), Shape{4}, {1, 0, 0, 0});
  expect_tensor(a.lower_equal(b), Shape{4}, {1, 1, 0, 0});
  auto ai = Tensor<1, Int>::from_ints({-1, 5, 3}, cpu);
  auto bi = Tensor<1, Int>::from_ints({0, 5, 2}, cpu);
  expect_tensor(ai.lower(bi), Shape{3}, {1, 0, 0});
  expect_tensor(ai.greater_equal(bi), Shape{3}, {0, 1, 1});
}

TEST(NumericCompare, ElemForms) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 2.5}}, cpu);
  expect_tensor(a.equal_elem(2.0), Shape{2, 2}, {0, 1, 0, 0});
  expect_tensor(a.not_equal_elem(2), Shape{2, 2}, {1, 0, 1, 1});
  expect_tensor(a.greater_elem(2.0), Shape{2, 2}, {0, 0, 1, 1});
  expect_tensor(a.greater_equal_elem(2.0), Shape{2, 2}, {0, 1, 1, 1});
  expect_tensor(a.lower_elem(2.5), Shape{2, 2}, {1, 1, 0, 0});
  expect_tensor(a.lower_equal_elem(2.5), Shape{2, 2}, {1, 1, 0, 1});
  auto ai = Tensor<1, Int>::from_ints({-2, 0, 7}, cpu);
  expect_tensor(ai.greater_elem(0), Shape{3}, {0, 0, 1});
  expect_tensor(ai.equal_elem(7), Shape{3}, {0, 0, 1});
}

TEST(NumericCompare, BoolCast) {
  Device cpu = Device::cpu();
  auto b = Tensor<1>::from_data({0.0, 1.5, -2.0, 0.0, kNaN}, cpu).bool_();
  EXPECT_EQ(b.dtype(), DType::Bool);
  expect_tensor(b, Shape{5}, {0, 1, 1, 0, 1});  // torch: bool(nan) is True
  expect_tensor(Tensor<1, Int>::from_ints({0, 3, -1}, cpu).bool_(), Shape{3}, {0, 1, 1});
}

TEST(NumericCompare, AllClose) {
  Device cpu = Device::cpu();
  auto a = Tensor<1>::from_data({1.0, 100.0, kInf}, cpu);
  auto b = Tensor<1>::from_data({1.0 + 4e-6, 100.0 + 5e-4, kInf}, cpu);
  EXPECT_TRUE(a.all_close(b));
  EXPECT_FALSE(a.all_close(Tensor<1>::from_data({1.001, 100.0, kInf}, cpu)));
  EXPECT_TRUE(a.all_close(Tensor<1>::from_data({1.001, 100.0, kInf}, cpu), 1e-2, 0.0));
  EXPECT_TRUE(a.all_close(Tensor<1>::from_data({1.05, 100.05, kInf}, cpu), 0.0, 0.1));
  // torch.allclose (and torch.isclose) treat infinities as close only when they are equal.
  EXPECT_FALSE(a.all_close(Tensor<1>::from_data({1.0, 100.0, -kInf}, cpu)));
  EXPECT_FALSE(Tensor<1>::from_data({1.0}, cpu).all_close(Tensor<1>::from_data({kInf}, cpu)));
  // torch.allclose: NaN is not close to NaN (equal_nan=False).
  auto n = Tensor<1>::from_data({kNaN}, cpu);
  EXPECT_FALSE(n.all_close(n));
}

TEST(NumericCompare, ContainsNan) {
  Device cpu = Device::cpu();
  auto with = Tensor<2>::from_data({{1.0, 2.0}, {kNaN, 4.0}}, cpu).contains_nan();
  EXPECT_EQ(with.dtype(), DType::Bool);
  expect_tensor(with, Shape{1}, {1});
  expect_tensor(Tensor<2>::from_data({{1.0, kInf}, {-kInf, 4.0}}, cpu).contains_nan(), Shape{1},
                {0});
}

TEST(NumericCompare, Clamp) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({-2.0, -0.5, 0.5, 3.0}, cpu);
  expect_tensor(x.clamp(-1.0, 1.0), Shape{4}, {-1, -0.5, 0.5, 1});
  expect_tensor(x.clamp_min(0.0), Shape{4}, {0, 0, 0.5, 3});
  expect_tensor(x.clamp_max(0.0), Shape{4}, {-2, -0.5, 0, 0});
  auto xi = Tensor<1, Int>::from_ints({-5, 0, 5, 10}, cpu);
  expect_tensor(xi.clamp(-1, 6), Shape{4}, {-1, 0, 5, 6});
  expect_tensor(xi.clamp_min(1), Shape{4}, {1, 1, 5, 10});
  expect_tensor(xi.clamp_max(4), Shape{4}, {-5, 0, 4, 4});
  // torch.clamp propagates NaN.
  expect_tensor(Tensor<1>::from_data({kNaN, 5.0}, cpu).clamp(0.0, 1.0), Shape{2}, {kNaN, 1});
}

// ---------------------------------------------------------------- masks

TEST(NumericMask, MaskFillAndWhere) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto mask = Tensor<2, Bool>::from_bool({{true, false}, {false, true}}, cpu);
  expect_tensor(x.mask_fill(mask, -1.0), Shape{2, 2}, {-1, 2, 3, -1});
  auto v = Tensor<2>::from_data({{10.0, 20.0}, {30.0, 40.0}}, cpu);
  // torch.where(mask, values, x)
  expect_tensor(x.mask_where(mask, v), Shape{2, 2}, {10, 2, 3, 40});
  auto xi = Tensor<1, Int>::from_ints({1, 2, 3}, cpu);
  expect_tensor(xi.mask_fill(Tensor<1, Bool>::from_bool({false, true, true}, cpu), 0), Shape{3},
                {1, 0, 0});
}

TEST(NumericMask, MaskBroadcasts) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  // A [1, 2] mask applies to every row (torch.masked_fill / torch.where broadcast).
  auto row_mask = Tensor<2, Bool>::from_bool({{true, false}}, cpu);
  expect_tensor(x.mask_fill(row_mask, 9.0), Shape{2, 2}, {9, 2, 9, 4});
  auto row_values = Tensor<2>::from_data({{-1.0, -2.0}}, cpu);
  auto col_mask = Tensor<2, Bool>::from_bool({{false}, {true}}, cpu);
  expect_tensor(x.mask_where(col_mask, row_values), Shape{2, 2}, {1, 2, -1, -2});
}

// ---------------------------------------------------------------- reductions

TEST(NumericReduce, FullReductionsGiveShapeOne) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, cpu);
  expect_tensor(x.sum(), Shape{1}, {21});
  expect_tensor(x.prod(), Shape{1}, {720});
  expect_tensor(x.max(), Shape{1}, {6});
  expect_tensor(x.min(), Shape{1}, {1});
  expect_tensor(x.mean(), Shape{1}, {3.5});
  EXPECT_DOUBLE_EQ(x.sum().into_scalar(), 21.0);
  auto xi = Tensor<2, Int>::from_ints({{1, -2}, {3, 4}}, cpu);
  expect_tensor(xi.sum(), Shape{1}, {6});
  expect_tensor(xi.prod(), Shape{1}, {-24});
  expect_tensor(xi.max(), Shape{1}, {4});
  expect_tensor(xi.min(), Shape{1}, {-2});
  expect_tensor(Tensor<1, Int>::from_ints({2, 4, 9}, cpu).mean(), Shape{1}, {5});
}

TEST(NumericReduce, DimFormsKeepDim) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, cpu);
  expect_tensor(x.sum_dim(0), Shape{1, 3}, {5, 7, 9});
  expect_tensor(x.sum_dim(1), Shape{2, 1}, {6, 15});
  expect_tensor(x.sum_dim(-1), Shape{2, 1}, {6, 15});
  expect_tensor(x.prod_dim(1), Shape{2, 1}, {6, 120});
  expect_tensor(x.prod_dim(0), Shape{1, 3}, {4, 10, 18});
  expect_tensor(x.max_dim(0), Shape{1, 3}, {4, 5, 6});
  expect_tensor(x.max_dim(1), Shape{2, 1}, {3, 6});
  expect_tensor(x.min_dim(1), Shape{2, 1}, {1, 4});
  expect_tensor(x.min_dim(0), Shape{1, 3}, {1, 2, 3});
  expect_tensor(x.mean_dim(1), Shape{2, 1}, {2, 5});
  expect_tensor(x.mean_dim(0), Shape{1, 3}, {2.5, 3.5, 4.5});
  // A rank-3 reduction over the middle dim: loops.
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i % 7) - 2.0f;
  auto t = Tensor<3>::from_data(TensorData(v, Shape{2, 3, 4}), cpu);
  std::vector<double> sum, mx;
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) {
      double s = 0, m = -1e30;
      for (int j = 0; j < 3; ++j) {
        s += v[i * 12 + j * 4 + k];
        m = std::max(m, static_cast<double>(v[i * 12 + j * 4 + k]));
      }
      sum.push_back(s);
      mx.push_back(m);
    }
  }
  expect_tensor(t.sum_dim(1), Shape{2, 1, 4}, sum);
  expect_tensor(t.max_dim(1), Shape{2, 1, 4}, mx);
}

TEST(NumericReduce, SumOfManyIsAccurate) {
  Device cpu = Device::cpu();
  // 2^20 copies of 0.1f: the exact sum is 2^20 * 0.1f. A naive f32 running sum is off by about
  // 1%; torch (pairwise summation) is within a few ulps.
  const int64_t n = int64_t{1} << 20;
  auto x = Tensor<1>::full({n}, 0.1, cpu);
  double exact = static_cast<double>(n) * static_cast<double>(0.1f);
  EXPECT_NEAR(x.sum().into_scalar(), exact, exact * 1e-5);
  EXPECT_NEAR(x.mean().into_scalar(), static_cast<double>(0.1f), 1e-6);
  auto y = Tensor<2>::full({2, n / 2}, 0.1, cpu);
  std::vector<double> rows = y.sum_dim(1).to_data().to_vec<double>();
  EXPECT_NEAR(rows[0], exact / 2, exact * 1e-5);
  EXPECT_NEAR(rows[1], exact / 2, exact * 1e-5);
}

TEST(NumericReduce, MaxAbs) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{-7.0, 3.0}, {2.0, -1.0}}, cpu);
  expect_tensor(x.max_abs(), Shape{1}, {7});
  expect_tensor(x.max_abs_dim(1), Shape{2, 1}, {7, 2});
  expect_tensor(x.max_abs_dim(0), Shape{1, 2}, {7, 3});
}

TEST(NumericReduce, ArgmaxArgminFirstIndexOnTies) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 3.0, 3.0}, {2.0, 2.0, 1.0}}, cpu);
  auto am = x.argmax(1);
  EXPECT_EQ(am.dtype(), DType::I32);
  expect_tensor(am, Shape{2, 1}, {1, 0});
  expect_tensor(x.argmin(1), Shape{2, 1}, {0, 2});
  expect_tensor(x.argmax(0), Shape{1, 3}, {1, 0, 0});
  expect_tensor(x.argmin(0), Shape{1, 3}, {0, 1, 1});
  auto same = Tensor<1>::from_data({5.0, 5.0, 5.0}, cpu);
  expect_tensor(same.argmax(0), Shape{1}, {0});
  expect_tensor(same.argmin(0), Shape{1}, {0});
  auto xi = Tensor<1, Int>::from_ints({4, 9, 9, -3, -3}, cpu);
  expect_tensor(xi.argmax(0), Shape{1}, {1});
  expect_tensor(xi.argmin(0), Shape{1}, {3});
}

TEST(NumericReduce, DimWithIndices) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 3.0, 3.0}, {5.0, 2.0, 5.0}}, cpu);
  auto [mx, mxi] = x.max_dim_with_indices(1);
  expect_tensor(mx, Shape{2, 1}, {3, 5});
  expect_tensor(mxi, Shape{2, 1}, {1, 0});
  auto [mn, mni] = x.min_dim_with_indices(1);
  expect_tensor(mn, Shape{2, 1}, {1, 2});
  expect_tensor(mni, Shape{2, 1}, {0, 1});
  auto [mx0, mxi0] = x.max_dim_with_indices(0);
  expect_tensor(mx0, Shape{1, 3}, {5, 3, 5});
  expect_tensor(mxi0, Shape{1, 3}, {1, 0, 1});
  auto [mn0, mni0] = x.min_dim_with_indices(0);
  expect_tensor(mn0, Shape{1, 3}, {1, 2, 3});
  expect_tensor(mni0, Shape{1, 3}, {0, 1, 0});
}

TEST(NumericReduce, PairwiseMaxMin) {
  Device cpu = Device::cpu();
  auto a = Tensor<1>::from_data({1.0, 5.0, 3.0, -1.0}, cpu);
  auto b = Tensor<1>::from_data({4.0, 2.0, 3.0, -2.0}, cpu);
  expect_tensor(a.max_pair(b), Shape{4}, {4, 5, 3, -1});
  expect_tensor(a.min_pair(b), Shape{4}, {1, 2, 3, -2});
  auto ai = Tensor<1, Int>::from_ints({1, 8}, cpu);
  auto bi = Tensor<1, Int>::from_ints({2, -8}, cpu);
  expect_tensor(ai.max_pair(bi), Shape{2}, {2, 8});
  expect_tensor(ai.min_pair(bi), Shape{2}, {1, -8});
  // torch.maximum / torch.minimum propagate NaN from either side.
  auto n = Tensor<1>::from_data({kNaN, 1.0}, cpu);
  auto m = Tensor<1>::from_data({1.0, kNaN}, cpu);
  expect_tensor(n.max_pair(m), Shape{2}, {kNaN, kNaN});
  expect_tensor(n.min_pair(m), Shape{2}, {kNaN, kNaN});
}

TEST(NumericReduce, NanAndInf) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, kNaN, 3.0}, cpu);
  expect_tensor(x.max(), Shape{1}, {kNaN});
  expect_tensor(x.min(), Shape{1}, {kNaN});
  expect_tensor(x.sum(), Shape{1}, {kNaN});
  expect_tensor(x.argmax(0), Shape{1}, {1});  // torch.argmax treats NaN as the maximum
  expect_tensor(x.argmin(0), Shape{1}, {1});  // and torch.argmin as the minimum
  auto y = Tensor<2>::from_data({{1.0, kNaN}, {2.0, 0.0}}, cpu);
  expect_tensor(y.max_dim(1), Shape{2, 1}, {kNaN, 2});
  expect_tensor(y.min_dim(1), Shape{2, 1}, {kNaN, 0});
  // NaN first in the row: a reduction that starts from the first element must still keep it.
  auto z = Tensor<1>::from_data({kNaN, 5.0, -5.0}, cpu);
  expect_tensor(z.max(), Shape{1}, {kNaN});
  expect_tensor(z.min(), Shape{1}, {kNaN});
  expect_tensor(z.argmax(0), Shape{1}, {0});
  expect_tensor(z.argmin(0), Shape{1}, {0});
  auto [zmax, zidx] = Tensor<2>::from_data({{1.0, 7.0, kNaN, 3.0}}, cpu).max_dim_with_indices(1);
  expect_tensor(zmax, Shape{1, 1}, {kNaN});
  expect_tensor(zidx, Shape{1, 1}, {2});
  auto w = Tensor<1>::from_data({1.0, kInf, 2.0}, cpu);
  expect_tensor(w.sum(), Shape{1}, {kInf});
  expect_tensor(w.mean(), Shape{1}, {kInf});
  expect_tensor(w.max(), Shape{1}, {kInf});
  expect_tensor(Tensor<1>::from_data({kInf, -kInf}, cpu).sum(), Shape{1}, {kNaN});
  expect_tensor(Tensor<1>::from_data({-kInf, 0.0}, cpu).min(), Shape{1}, {-kInf});
}

// ---------------------------------------------------------------- non-contiguous inputs

TEST(NumericViews, OpsOnTransposedSlicedExpandedInputs) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 5.0, 2.0}, {4.0, 0.0, 6.0}}, cpu);
  auto xt = x.transpose();  // [[1, 4], [5, 0], [2, 6]]
  expect_tensor(xt.sum_dim(1), Shape{3, 1}, {5, 5, 8});
  expect_tensor(xt.sum_dim(0), Shape{1, 2}, {8, 10});
  expect_tensor(xt.argmax(1), Shape{3, 1}, {1, 0, 1});
  expect_tensor(xt.argmin(0), Shape{1, 2}, {0, 1});
  expect_tensor(xt.sort(0), Shape{3, 2}, {1, 0, 2, 4, 5, 6});
  expect_tensor(xt.argsort(0), Shape{3, 2}, {0, 1, 2, 0, 1, 2});
  expect_tensor(xt * Tensor<2>::from_data({{10.0}, {20.0}, {30.0}}, cpu), Shape{3, 2},
                {10, 40, 100, 0, 60, 180});
  expect_tensor(xt + xt, Shape{3, 2}, {2, 8, 10, 0, 4, 12});
  expect_tensor(xt.gather(1, Tensor<2, Int>::from_ints({{1}, {0}, {1}}, cpu)), Shape{3, 1},
                {4, 5, 6});
  expect_tensor(xt.int_(), Shape{3, 2}, {1, 4, 5, 0, 2, 6});
  expect_tensor(xt.tril(0), Shape{3, 2}, {1, 0, 5, 0, 2, 6});
  expect_tensor(xt.mean(), Shape{1}, {3});
  auto sl = x.slice({Range::all(), Range(1, 3)});  // [[5, 2], [0, 6]]
  expect_tensor(sl.max_dim(1), Shape{2, 1}, {5, 6});
  expect_tensor(sl - 1.0, Shape{2, 2}, {4, 1, -1, 5});
  auto fl = x.flip({1});  // [[2, 5, 1], [6, 0, 4]]
  expect_tensor(fl.argsort(1), Shape{2, 3}, {2, 0, 1, 1, 2, 0});
  expect_tensor(fl.max_dim(0), Shape{1, 3}, {6, 5, 4});
  auto ex = Tensor<2>::from_data({{1.0, 2.0}}, cpu).expand({3, 2});
  expect_tensor(ex.sum_dim(0), Shape{1, 2}, {3, 6});
  expect_tensor(ex * xt, Shape{3, 2}, {1, 8, 5, 0, 2, 12});
  expect_tensor(ex.sort_descending(1), Shape{3, 2}, {2, 1, 2, 1, 2, 1});
}

// ---------------------------------------------------------------- sorting

TEST(NumericSort, SortAndArgsortStable) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({3.0, 1.0, 2.0, 1.0, 3.0}, cpu);
  expect_tensor(x.sort(0), Shape{5}, {1, 1, 2, 3, 3});
  expect_tensor(x.sort_descending(0), Shape{5}, {3, 3, 2, 1, 1});
  expect_tensor(x.argsort(0), Shape{5}, {1, 3, 2, 0, 4});
  expect_tensor(x.argsort_descending(0), Shape{5}, {0, 4, 2, 1, 3});
  auto [v, i] = x.sort_with_indices(0);
  expect_tensor(v, Shape{5}, {1, 1, 2, 3, 3});
  expect_tensor(i, Shape{5}, {1, 3, 2, 0, 4});
  auto [vd, id] = x.sort_descending_with_indices(0);
  expect_tensor(vd, Shape{5}, {3, 3, 2, 1, 1});
  expect_tensor(id, Shape{5}, {0, 4, 2, 1, 3});
}

TEST(NumericSort, StableOnLongRowsWithTies) {
  Device cpu = Device::cpu();
  // 200 values with many ties; the reference is std::stable_sort of the positions.
  const int n = 200;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37) % 5) - 2.0f;
  std::vector<int> asc(n), desc(n);
  for (int i = 0; i < n; ++i) asc[i] = desc[i] = i;
  std::stable_sort(asc.begin(), asc.end(), [&](int a, int b) { return v[a] < v[b]; });
  std::stable_sort(desc.begin(), desc.end(), [&](int a, int b) { return v[a] > v[b]; });
  auto x = Tensor<2>::from_data(TensorData(v, Shape{1, n}), cpu);
  auto [sv, si] = x.sort_with_indices(1);
  auto [dv, di] = x.sort_descending_with_indices(1);
  std::vector<double> want_sv, want_si, want_dv, want_di;
  for (int i = 0; i < n; ++i) {
    want_sv.push_back(v[asc[i]]);
    want_si.push_back(asc[i]);
    want_dv.push_back(v[desc[i]]);
    want_di.push_back(desc[i]);
  }
  expect_tensor(sv, Shape{1, n}, want_sv, 0);
  expect_tensor(si, Shape{1, n}, want_si, 0);
  expect_tensor(dv, Shape{1, n}, want_dv, 0);
  expect_tensor(di, Shape{1, n}, want_di, 0);
  // The same along dim 0 of the transposed layout.
  auto xt = Tensor<2>::from_data(TensorData(v, Shape{n, 1}), cpu);
  expect_tensor(xt.argsort(0), Shape{n, 1}, want_si, 0);
  expect_tensor(xt.argsort_descending(0), Shape{n, 1}, want_di, 0);
}

TEST(NumericSort, AlongDims) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{3.0, -1.0, 2.0}, {0.0, 5.0, 2.0}}, cpu);
  expect_tensor(x.sort(1), Shape{2, 3}, {-1, 2, 3, 0, 2, 5});
  expect_tensor(x.argsort(1), Shape{2, 3}, {1, 2, 0, 0, 2, 1});
  expect_tensor(x.sort(0), Shape{2, 3}, {0, -1, 2, 3, 5, 2});
  expect_tensor(x.argsort(0), Shape{2, 3}, {1, 0, 0, 0, 1, 1});
  expect_tensor(x.sort_descending(-1), Shape{2, 3}, {3, 2, -1, 5, 2, 0});
  expect_tensor(x.argsort_descending(0), Shape{2, 3}, {0, 1, 0, 1, 0, 1});
  auto xi = Tensor<1, Int>::from_ints({5, -2, 5, 0}, cpu);
  auto [vi, ii] = xi.sort_with_indices(0);
  EXPECT_EQ(vi.dtype(), DType::I32);
  expect_tensor(vi, Shape{4}, {-2, 0, 5, 5});
  expect_tensor(ii, Shape{4}, {1, 3, 0, 2});
}

TEST(NumericSort, NanSortsLastAscending) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({3.0, kNaN, 1.0, -kInf}, cpu);
  auto [v, i] = x.sort_with_indices(0);
  expect_tensor(v, Shape{4}, {-kInf, 1, 3, kNaN});
  expect_tensor(i, Shape{4}, {3, 2, 0, 1});
  // torch.sort(descending=True) puts NaN first.
  auto [vd, id] = x.sort_descending_with_indices(0);
  expect_tensor(vd, Shape{4}, {kNaN, 3, 1, -kInf});
  expect_tensor(id, Shape{4}, {1, 0, 2, 3});
  // torch.topk treats NaN as the largest value.
  auto [tv, ti] = x.topk_with_indices(2, 0);
  expect_tensor(tv, Shape{2}, {kNaN, 3});
  expect_tensor(ti, Shape{2}, {1, 0});
  expect_tensor(x.argsort(0), Shape{4}, {3, 2, 0, 1});
}

TEST(NumericSort, Topk) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 5.0, 3.0, 4.0, 2.0}, cpu);
  expect_tensor(x.topk(3, 0), Shape{3}, {5, 4, 3});
  auto [v, i] = x.topk_with_indices(2, 0);
  expect_tensor(v, Shape{2}, {5, 4});
  expect_tensor(i, Shape{2}, {1, 3});
  auto y = Tensor<2>::from_data({{1.0, 9.0}, {7.0, 2.0}, {4.0, 8.0}}, cpu);
  auto [v0, i0] = y.topk_with_indices(2, 0);
  expect_tensor(v0, Shape{2, 2}, {7, 9, 4, 8});
  expect_tensor(i0, Shape{2, 2}, {1, 0, 2, 2});
  expect_tensor(y.topk(1, 1), Shape{3, 1}, {9, 7, 8});
  expect_error([&] { auto bad = x.topk(6, 0); }, {"topk"});
}

// ---------------------------------------------------------------- indexing

TEST(NumericIndex, Gather) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  // out[i][j] = x[i][index[i][j]]
  expect_tensor(x.gather(1, Tensor<2, Int>::from_ints({{0, 0}, {1, 0}}, cpu)), Shape{2, 2},
                {1, 1, 4, 3});
  // out[i][j] = x[index[i][j]][j]
  expect_tensor(x.gather(0, Tensor<2, Int>::from_ints({{1, 0}, {1, 1}}, cpu)), Shape{2, 2},
                {3, 2, 3, 4});
  // The index may be smaller than the input along the gathered dim.
  expect_tensor(x.gather(1, Tensor<2, Int>::from_ints({{1}, {0}}, cpu)), Shape{2, 1}, {2, 3});
  expect_tensor(x.gather(-1, Tensor<2, Int>::from_ints({{1, 1}, {0, 1}}, cpu)), Shape{2, 2},
                {2, 2, 3, 4});
  auto xi = Tensor<1, Int>::from_ints({10, 20, 30}, cpu);
  expect_tensor(xi.gather(0, Tensor<1, Int>::from_ints({2, 2, 0, 1}, cpu)), Shape{4},
                {30, 30, 10, 20});
}

TEST(NumericIndex, ScatterAdds) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::ones({2, 3}, cpu);
  auto idx = Tensor<2, Int>::from_ints({{0, 1, 0}, {2, 2, 1}}, cpu);
  auto v = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, cpu);
  // torch.scatter_add along dim 1: x[i][idx[i][j]] += v[i][j].
  expect_tensor(x.scatter(1, idx, v), Shape{2, 3}, {5, 3, 1, 1, 7, 10});
  // Along dim 0: x[idx[i][j]][j] += v[i][j].
  auto idx0 = Tensor<2, Int>::from_ints({{1, 0, 1}, {1, 1, 1}}, cpu);
  expect_tensor(x.scatter(0, idx0, v), Shape{2, 3}, {1, 3, 1, 6, 6, 10});
  auto xi = Tensor<1, Int>::zeros({4}, cpu);
  expect_tensor(xi.scatter(0, Tensor<1, Int>::from_ints({3, 3, 0}, cpu),
                           Tensor<1, Int>::from_ints({1, 2, 5}, cpu)),
                Shape{4}, {5, 0, 0, 3});
}

TEST(NumericIndex, Select) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 9.0}}, cpu);
  expect_tensor(x.select(0, Tensor<1, Int>::from_ints({2, 0}, cpu)), Shape{2, 3},
                {7, 8, 9, 1, 2, 3});
  expect_tensor(x.select(1, Tensor<1, Int>::from_ints({1, 1, 0, 2}, cpu)), Shape{3, 4},
                {2, 2, 1, 3, 5, 5, 4, 6, 8, 8, 7, 9});
}

TEST(NumericIndex, SelectAssignAdds) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, cpu);
  auto v = Tensor<2>::from_data({{10.0, 10.0}, {20.0, 20.0}, {30.0, 30.0}}, cpu);
  // Rows 0, 2, 0 get v's rows added (index_add): row 0 gets 10 + 30.
  expect_tensor(x.select_assign(0, Tensor<1, Int>::from_ints({0, 2, 0}, cpu), v), Shape{3, 2},
                {41, 42, 3, 4, 25, 26});
  auto w = Tensor<2>::from_data({{1.0}, {2.0}, {3.0}}, cpu);
  expect_tensor(x.select_assign(1, Tensor<1, Int>::from_ints({1}, cpu), w), Shape{3, 2},
                {1, 3, 3, 6, 5, 9});
}

TEST(NumericIndex, OneHot) {
  Device cpu = Device::cpu();
  auto xi = Tensor<1, Int>::from_ints({0, 2, 1}, cpu);
  auto oh = xi.one_hot(3);
  EXPECT_EQ(oh.dtype(), DType::I32);
  expect_tensor(oh, Shape{3, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0});
  auto xf = Tensor<1>::from_data({1.0, 3.0}, cpu);
  auto ohf = xf.one_hot(4);
  EXPECT_EQ(ohf.dtype(), DType::F32);
  expect_tensor(ohf, Shape{2, 4}, {0, 1, 0, 0, 0, 0, 0, 1});
  auto x2 = Tensor<2, Int>::from_ints({{0, 1}, {1, 0}}, cpu);
  expect_tensor(x2.one_hot(2), Shape{2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
}

// A class outside [0, num_classes) is an error when the result is read, naming one_hot and the
// class, as gather's indices are (it used to give a silent row of zeros).
TEST(NumericIndex, OneHotClassOutOfRangeIsAnError) {
  Device cpu = Device::cpu();
  auto big = Tensor<1, Int>::from_ints({0, 3, 1}, cpu).one_hot(3);
  expect_error([&] { big.to_data(); }, {"one_hot", "index 3", "out of range"});
  auto neg = Tensor<1, Int>::from_ints({-1}, cpu).one_hot(3);
  expect_error([&] { neg.to_data(); }, {"one_hot", "index -1"});
  auto fl = Tensor<1>::from_data({1.0, 4.0}, cpu).one_hot(4);
  expect_error([&] { fl.to_data(); }, {"one_hot", "index 4"});
  // Still usable, and in-range classes unaffected.
  expect_tensor(Tensor<1, Int>::from_ints({2}, cpu).one_hot(3), Shape{1, 3}, {0, 0, 1});
}

TEST(NumericIndex, OneHotFill) {
  Device cpu = Device::cpu();
  auto x = Tensor<1, Int>::from_ints({2, 0}, cpu);
  // Classes on the last axis: out[i][c].
  expect_tensor(x.one_hot_fill(3, 5, -1, -1), Shape{2, 3}, {-1, -1, 5, 5, -1, -1});
  // Classes on axis 0: out[c][i].
  expect_tensor(x.one_hot_fill(3, 5, -1, 0), Shape{3, 2}, {-1, 5, -1, -1, 5, -1});
  auto xf = Tensor<1>::from_data({1.0}, cpu);
  expect_tensor(xf.one_hot_fill(3, 0.5, 0.25, -1), Shape{1, 3}, {0.25, 0.5, 0.25});
}

TEST(NumericIndex, TrilTriu) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}, {7.0, 8.0, 9.0}}, cpu);
  expect_tensor(x.tril(0), Shape{3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9});
  expect_tensor(x.tril(1), Shape{3, 3}, {1, 2, 0, 4, 5, 6, 7, 8, 9});
  expect_tensor(x.tril(-1), Shape{3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  expect_tensor(x.triu(0), Shape{3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9});
  expect_tensor(x.triu(1), Shape{3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0});
  expect_tensor(x.triu(-1), Shape{3, 3}, {1, 2, 3, 4, 5, 6, 0, 8, 9});
  // Non-square and batched: keep (j - i <= d) for tril, (j - i >= d) for triu.
  std::vector<float> v(2 * 2 * 4);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i + 1);
  auto b = Tensor<3>::from_data(TensorData(v, Shape{2, 2, 4}), cpu);
  for (int d : {-1, 0, 2}) {
    std::vector<double> lo, up;
    for (int n = 0; n < 2; ++n) {
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
          double e = v[n * 8 + i * 4 + j];
          lo.push_back(j - i <= d ? e : 0);
          up.push_back(j - i >= d ? e : 0);
        }
      }
    }
    SCOPED_TRACE(d);
    expect_tensor(b.tril(d), Shape{2, 2, 4}, lo);
    expect_tensor(b.triu(d), Shape{2, 2, 4}, up);
  }
  auto xi = Tensor<2, Int>::from_ints({{1, 2}, {3, 4}}, cpu);
  expect_tensor(xi.triu(0), Shape{2, 2}, {1, 2, 0, 4});
}

}  // namespace
}  // namespace ember
