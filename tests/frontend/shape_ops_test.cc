// Shape and layout ops of the Burn Book's "Basic Operations" table: every expected value is
// written by hand or computed with plain loops over the input values (never with Ember ops).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_tensor;

// ---------------------------------------------------------------- reference helpers

// 0, 1, 2, ... (plus `start`) as a row-major vector of `n` values.
std::vector<double> iota_values(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i);
  return v;
}

// A Float tensor holding start, start + 1, ... in row-major order.
template <int D>
Tensor<D> seq(const Shape& s, double start = 0) {
  std::vector<float> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(start + static_cast<double>(i));
  return Tensor<D>::from_data(TensorData(v, s), Device::cpu());
}

// An Int tensor holding start, start + 1, ... in row-major order.
template <int D>
Tensor<D, Int> iseq(const Shape& s, int32_t start = 0) {
  std::vector<int32_t> v(static_cast<size_t>(s.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<int32_t>(i);
  return Tensor<D, Int>::from_data(TensorData(v, s), Device::cpu());
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> st(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * dims[i + 1];
  return st;
}

// out[i_0, .., i_{r-1}] = in[j] where j has coordinate i_k along axis perm[k].
std::vector<double> ref_permute(const std::vector<double>& in, const std::vector<int64_t>& dims,
                                const std::vector<int>& perm) {
  int r = static_cast<int>(dims.size());
  std::vector<int64_t> out_dims(r);
  for (int k = 0; k < r; ++k) out_dims[k] = dims[perm[k]];
  std::vector<int64_t> in_st = row_major_strides(dims), out_st = row_major_strides(out_dims);
  std::vector<double> out(in.size());
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t src = 0;
    for (int k = 0; k < r; ++k) {
      int64_t coord = (static_cast<int64_t>(o) / out_st[k]) % out_dims[k];
      src += coord * in_st[perm[k]];
    }
    out[o] = in[src];
  }
  return out;
}

// ---------------------------------------------------------------- cat / stack

TEST(ShapeOps, CatAlongEachDim) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto b = Tensor<2>::from_data({{5.0, 6.0}}, cpu);
  auto c = Tensor<2>::from_data({{7.0}, {8.0}}, cpu);
  expect_tensor(Tensor<2>::cat({a, b}, 0), Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  expect_tensor(Tensor<2>::cat({b, a, b}, 0), Shape{4, 2}, {5, 6, 1, 2, 3, 4, 5, 6});
  expect_tensor(Tensor<2>::cat({a, c}, 1), Shape{2, 3}, {1, 2, 7, 3, 4, 8});
  expect_tensor(Tensor<2>::cat({c, a}, -1), Shape{2, 3}, {7, 1, 2, 8, 3, 4});
  expect_tensor(Tensor<2>::cat({a}, 0), Shape{2, 2}, {1, 2, 3, 4});
}

TEST(ShapeOps, CatWithSizeZeroPieces) {
  Device cpu = Device::cpu();
  auto x = seq<2>({2, 3});
  auto empty_cols = Tensor<2>::zeros({2, 0}, cpu);
  auto empty_rows = Tensor<2>::zeros({0, 3}, cpu);
  expect_tensor(Tensor<2>::cat({empty_cols, x, empty_cols}, 1), Shape{2, 3}, iota_values(6));
  expect_tensor(Tensor<2>::cat({empty_rows, x}, 0), Shape{2, 3}, iota_values(6));
  expect_tensor(Tensor<2>::cat({empty_rows, empty_rows}, 0), Shape{0, 3}, {});
}

TEST(ShapeOps, CatIntAndBool) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::from_data({1, 2}, cpu);
  auto b = Tensor<1, Int>::from_data({-3}, cpu);
  auto ci = Tensor<1, Int>::cat({a, b, a}, 0);
  EXPECT_EQ(ci.dtype(), DType::I32);
  expect_tensor(ci, Shape{5}, {1, 2, -3, 1, 2});
  auto p = Tensor<2, Bool>::from_data({{true}, {false}}, cpu);
  auto q = Tensor<2, Bool>::from_data({{false, false}, {true, true}}, cpu);
  auto cb = Tensor<2, Bool>::cat({p, q}, 1);
  EXPECT_EQ(cb.dtype(), DType::Bool);
  expect_tensor(cb, Shape{2, 3}, {1, 0, 0, 0, 1, 1});
}

TEST(ShapeOps, StackAtEveryPosition) {
  Device cpu = Device::cpu();
  auto a = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  auto b = Tensor<1>::from_data({4.0, 5.0, 6.0}, cpu);
  expect_tensor(Tensor<1>::stack({a, b}, 0), Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  expect_tensor(Tensor<1>::stack({a, b}, 1), Shape{3, 2}, {1, 4, 2, 5, 3, 6});
  expect_tensor(Tensor<1>::stack({a, b}, -1), Shape{3, 2}, {1, 4, 2, 5, 3, 6});
  expect_tensor(Tensor<1>::stack({a}, 0), Shape{1, 3}, {1, 2, 3});

  // Rank 2 stacked at the middle and the end: out[i][k][j] = t_k[i][j], out[i][j][k] = t_k[i][j].
  auto x = seq<2>({2, 3});
  auto y = seq<2>({2, 3}, 100);
  std::vector<double> mid, last;
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 2; ++k) {
      for (int j = 0; j < 3; ++j) mid.push_back((k == 0 ? 0 : 100) + i * 3 + j);
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 2; ++k) last.push_back((k == 0 ? 0 : 100) + i * 3 + j);
    }
  }
  expect_tensor(Tensor<2>::stack({x, y}, 1), Shape{2, 2, 3}, mid);
  expect_tensor(Tensor<2>::stack({x, y}, 2), Shape{2, 3, 2}, last);
  expect_tensor(Tensor<2>::stack({x, y}, -1), Shape{2, 3, 2}, last);
}

TEST(ShapeOps, StackIntAndBool) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::from_data({1, 2}, cpu);
  auto b = Tensor<1, Int>::from_data({3, 4}, cpu);
  expect_tensor(Tensor<1, Int>::stack({a, b}, 1), Shape{2, 2}, {1, 3, 2, 4});
  auto p = Tensor<1, Bool>::from_data({true, false}, cpu);
  auto q = Tensor<1, Bool>::from_data({false, false}, cpu);
  auto s = Tensor<1, Bool>::stack({p, q, p}, 0);
  EXPECT_EQ(s.dtype(), DType::Bool);
  expect_tensor(s, Shape{3, 2}, {1, 0, 0, 0, 1, 0});
}

// ---------------------------------------------------------------- chunk / split

TEST(ShapeOps, ChunkFollowsPyTorchSizes) {
  // torch.arange(5).chunk(3) -> sizes [2, 2, 1]
  auto x5 = seq<1>({5});
  auto c = x5.chunk(3, 0);
  ASSERT_EQ(c.size(), 3u);
  expect_tensor(c[0], Shape{2}, {0, 1});
  expect_tensor(c[1], Shape{2}, {2, 3});
  expect_tensor(c[2], Shape{1}, {4});
  // torch.arange(6).chunk(4) -> sizes [2, 2, 2] (fewer chunks than asked)
  auto c6 = seq<1>({6}).chunk(4, 0);
  ASSERT_EQ(c6.size(), 3u);
  expect_tensor(c6[0], Shape{2}, {0, 1});
  expect_tensor(c6[1], Shape{2}, {2, 3});
  expect_tensor(c6[2], Shape{2}, {4, 5});
  // More chunks than elements: one element each.
  auto c2 = seq<1>({2}).chunk(4, 0);
  ASSERT_EQ(c2.size(), 2u);
  expect_tensor(c2[0], Shape{1}, {0});
  expect_tensor(c2[1], Shape{1}, {1});
  // An empty dim: `chunks` empty chunks (torch.zeros(0).chunk(2) gives two; ATen's chunk calls
  // split_with_sizes with `chunks` zeros for a size-0 dim).
  auto e = Tensor<2>::zeros(Shape{3, 0}, Device::cpu()).chunk(2, 1);
  ASSERT_EQ(e.size(), 2u);
  for (const auto& part : e) expect_tensor(part, Shape{3, 0}, {});
  // Exact division, along the last dim of a matrix.
  auto m = seq<2>({2, 4}).chunk(2, -1);
  ASSERT_EQ(m.size(), 2u);
  expect_tensor(m[0], Shape{2, 2}, {0, 1, 4, 5});
  expect_tensor(m[1], Shape{2, 2}, {2, 3, 6, 7});
}

TEST(ShapeOps, SplitBySize) {
  auto x = seq<1>({5});
  auto s = x.split(2, 0);
  ASSERT_EQ(s.size(), 3u);
  expect_tensor(s[0], Shape{2}, {0, 1});
  expect_tensor(s[1], Shape{2}, {2, 3});
  expect_tensor(s[2], Shape{1}, {4});
  auto whole = x.split(5, 0);
  ASSERT_EQ(whole.size(), 1u);
  expect_tensor(whole[0], Shape{5}, {0, 1, 2, 3, 4});
  auto bigger = x.split(7, 0);
  ASSERT_EQ(bigger.size(), 1u);
  expect_tensor(bigger[0], Shape{5}, {0, 1, 2, 3, 4});
  auto rows = seq<2>({3, 2}).split(2, 0);
  ASSERT_EQ(rows.size(), 2u);
  expect_tensor(rows[0], Shape{2, 2}, {0, 1, 2, 3});
  expect_tensor(rows[1], Shape{1, 2}, {4, 5});
  auto ints = iseq<2>({2, 3}).split(1, 1);
  ASSERT_EQ(ints.size(), 3u);
  expect_tensor(ints[2], Shape{2, 1}, {2, 5});
}

TEST(ShapeOps, SplitWithSizesIncludingZero) {
  auto x = seq<1>({5});
  auto s = x.split_with_sizes({1, 0, 4}, 0);
  ASSERT_EQ(s.size(), 3u);
  expect_tensor(s[0], Shape{1}, {0});
  expect_tensor(s[1], Shape{0}, {});
  expect_tensor(s[2], Shape{4}, {1, 2, 3, 4});
  auto m = seq<2>({2, 5}).split_with_sizes({3, 2}, 1);
  ASSERT_EQ(m.size(), 2u);
  expect_tensor(m[0], Shape{2, 3}, {0, 1, 2, 5, 6, 7});
  expect_tensor(m[1], Shape{2, 2}, {3, 4, 8, 9});
  auto neg = seq<2>({3, 2}).split_with_sizes({2, 1}, -2);
  ASSERT_EQ(neg.size(), 2u);
  expect_tensor(neg[1], Shape{1, 2}, {4, 5});
}

// ---------------------------------------------------------------- expand / flatten / flip

TEST(ShapeOps, ExpandSizeOneDims) {
  Device cpu = Device::cpu();
  auto col = Tensor<2>::from_data({{1.0}, {2.0}, {3.0}}, cpu);
  expect_tensor(col.expand({3, 4}), Shape{3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
  auto row = Tensor<2>::from_data({{1.0, 2.0, 3.0}}, cpu);
  expect_tensor(row.expand({2, 3}), Shape{2, 3}, {1, 2, 3, 1, 2, 3});
  // Unchanged shape, and expanding a size-1 dim to 0.
  expect_tensor(row.expand({1, 3}), Shape{1, 3}, {1, 2, 3});
  expect_tensor(row.expand({0, 3}), Shape{0, 3}, {});
  auto one = Tensor<2>::from_data({{7.0}}, cpu);
  expect_tensor(one.expand({2, 2}), Shape{2, 2}, {7, 7, 7, 7});
}

TEST(ShapeOps, ExpandAddsLeadingDimsAndKeepsMinusOne) {
  Device cpu = Device::cpu();
  auto v = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  expect_tensor(v.expand({2, 3}), Shape{2, 3}, {1, 2, 3, 1, 2, 3});
  expect_tensor(v.expand({2, -1}), Shape{2, 3}, {1, 2, 3, 1, 2, 3});
  auto col = Tensor<2>::from_data({{1.0}, {2.0}, {3.0}}, cpu);
  // [3, 1] -> [2, -1, 4] = [2, 3, 4]: out[a][i][j] = col[i].
  std::vector<double> want;
  for (int a = 0; a < 2; ++a) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) want.push_back(i + 1);
    }
  }
  expect_tensor(col.expand({2, -1, 4}), Shape{2, 3, 4}, want);
  expect_tensor(col.expand<3>(Shape{2, 3, 4}), Shape{2, 3, 4}, want);
  auto ints = Tensor<1, Int>::from_data({5, -6}, cpu);
  expect_tensor(ints.expand({3, 2}), Shape{3, 2}, {5, -6, 5, -6, 5, -6});
  auto bools = Tensor<2, Bool>::from_data({{true}, {false}}, cpu);
  expect_tensor(bools.expand({2, 2}), Shape{2, 2}, {1, 1, 0, 0});
}

TEST(ShapeOps, Flatten) {
  auto x = seq<3>({2, 3, 4});
  expect_tensor(x.flatten<1>(0, 2), Shape{24}, iota_values(24));
  expect_tensor(x.flatten<1>(0, -1), Shape{24}, iota_values(24));
  expect_tensor(x.flatten<2>(1, 2), Shape{2, 12}, iota_values(24));
  expect_tensor(x.flatten<2>(0, 1), Shape{6, 4}, iota_values(24));
  expect_tensor(x.flatten<2>(-2, -1), Shape{2, 12}, iota_values(24));
  expect_tensor(x.flatten<3>(1, 1), Shape{2, 3, 4}, iota_values(24));
  expect_tensor(Tensor<3>::zeros({2, 0, 3}, Device::cpu()).flatten<2>(1, 2), Shape{2, 0}, {});
}

TEST(ShapeOps, Flip) {
  auto x = seq<2>({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  expect_tensor(x.flip({0}), Shape{2, 3}, {3, 4, 5, 0, 1, 2});
  expect_tensor(x.flip({1}), Shape{2, 3}, {2, 1, 0, 5, 4, 3});
  expect_tensor(x.flip({-1}), Shape{2, 3}, {2, 1, 0, 5, 4, 3});
  expect_tensor(x.flip({0, 1}), Shape{2, 3}, {5, 4, 3, 2, 1, 0});
  expect_tensor(x.flip({}), Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  // Rank 3, flipping the outer and inner dims.
  auto y = seq<3>({2, 2, 3});
  std::vector<double> want;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 3; ++c) want.push_back((1 - a) * 6 + b * 3 + (2 - c));
    }
  }
  expect_tensor(y.flip({0, 2}), Shape{2, 2, 3}, want);
  auto bools = Tensor<1, Bool>::from_data({true, false, false}, Device::cpu());
  expect_tensor(bools.flip({0}), Shape{3}, {0, 0, 1});
}

// ---------------------------------------------------------------- narrow / permute / movedim

TEST(ShapeOps, Narrow) {
  auto x = seq<2>({4, 3});
  expect_tensor(x.narrow(0, 1, 2), Shape{2, 3}, {3, 4, 5, 6, 7, 8});
  expect_tensor(x.narrow(1, 2, 1), Shape{4, 1}, {2, 5, 8, 11});
  expect_tensor(x.narrow(-1, 0, 2), Shape{4, 2}, {0, 1, 3, 4, 6, 7, 9, 10});
  // A negative start counts from the end of the dim (torch.narrow accepts it too).
  expect_tensor(x.narrow(0, -1, 1), Shape{1, 3}, {9, 10, 11});
  expect_tensor(x.narrow(0, 4, 0), Shape{0, 3}, {});
}

TEST(ShapeOps, Permute) {
  auto x = seq<3>({2, 3, 4});
  auto in = iota_values(24);
  expect_tensor(x.permute({2, 0, 1}), Shape{4, 2, 3}, ref_permute(in, {2, 3, 4}, {2, 0, 1}));
  expect_tensor(x.permute({-1, 0, 1}), Shape{4, 2, 3}, ref_permute(in, {2, 3, 4}, {2, 0, 1}));
  expect_tensor(x.permute({1, 2, 0}), Shape{3, 4, 2}, ref_permute(in, {2, 3, 4}, {1, 2, 0}));
  expect_tensor(x.permute({0, 1, 2}), Shape{2, 3, 4}, in);
  // Spot check by hand: permute({2, 0, 1})[1][1][2] = x[1][2][1] = 12 + 8 + 1.
  EXPECT_EQ(x.permute({2, 0, 1}).to_data().to_vec<double>()[1 * 6 + 1 * 3 + 2], 21.0);
  auto ints = iseq<2>({2, 3});
  expect_tensor(ints.permute({1, 0}), Shape{3, 2}, {0, 3, 1, 4, 2, 5});
}

TEST(ShapeOps, Movedim) {
  auto x = seq<3>({2, 3, 4});
  auto in = iota_values(24);
  // torch.movedim(x, 0, 2): dims (1, 2, 0).
  expect_tensor(x.movedim(0, 2), Shape{3, 4, 2}, ref_permute(in, {2, 3, 4}, {1, 2, 0}));
  // torch.movedim(x, -1, 0): dims (2, 0, 1).
  expect_tensor(x.movedim(-1, 0), Shape{4, 2, 3}, ref_permute(in, {2, 3, 4}, {2, 0, 1}));
  expect_tensor(x.movedim(1, 1), Shape{2, 3, 4}, in);
  // torch.movedim(y, (0, 1), (3, 1)) on [2, 3, 4, 5]: dims (2, 1, 3, 0) -> [4, 3, 5, 2].
  auto y = seq<4>({2, 3, 4, 5});
  auto in4 = iota_values(120);
  expect_tensor(y.movedim({0, 1}, {3, 1}), Shape{4, 3, 5, 2},
                ref_permute(in4, {2, 3, 4, 5}, {2, 1, 3, 0}));
  // torch.movedim(y, (0, 2), (-1, 0)): dest 3 <- 0, dest 0 <- 2, rest (1, 3) -> dims (2, 1, 3, 0).
  expect_tensor(y.movedim({0, 2}, {-1, 0}), Shape{4, 3, 5, 2},
                ref_permute(in4, {2, 3, 4, 5}, {2, 1, 3, 0}));
}

// ---------------------------------------------------------------- repeat / reshape / roll

TEST(ShapeOps, Repeat) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  // torch.tensor([[1, 2], [3, 4]]).repeat(2, 3): out[i][j] = x[i % 2][j % 2].
  std::vector<double> want;
  double vals[2][2] = {{1, 2}, {3, 4}};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 6; ++j) want.push_back(vals[i % 2][j % 2]);
  }
  expect_tensor(x.repeat({2, 3}), Shape{4, 6}, want);
  expect_tensor(x.repeat({1, 1}), Shape{2, 2}, {1, 2, 3, 4});
  expect_tensor(x.repeat({0, 1}), Shape{0, 2}, {});
  auto v = Tensor<1, Int>::from_data({1, 2, 3}, cpu);
  expect_tensor(v.repeat({2}), Shape{6}, {1, 2, 3, 1, 2, 3});
  auto b = Tensor<1, Bool>::from_data({true, false}, cpu);
  expect_tensor(b.repeat({3}), Shape{6}, {1, 0, 1, 0, 1, 0});
}

TEST(ShapeOps, RepeatDim) {
  auto x = seq<2>({2, 3});
  expect_tensor(x.repeat_dim(0, 2), Shape{4, 3}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  expect_tensor(x.repeat_dim(1, 2), Shape{2, 6}, {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  expect_tensor(x.repeat_dim(-1, 1), Shape{2, 3}, {0, 1, 2, 3, 4, 5});
  expect_tensor(x.repeat_dim(-2, 0), Shape{0, 3}, {});
}

TEST(ShapeOps, Reshape) {
  auto x = seq<2>({2, 3});
  auto in = iota_values(6);
  expect_tensor(x.reshape({3, 2}), Shape{3, 2}, in);
  expect_tensor(x.reshape({6}), Shape{6}, in);
  expect_tensor(x.reshape({-1}), Shape{6}, in);
  expect_tensor(x.reshape({3, -1}), Shape{3, 2}, in);
  expect_tensor(x.reshape({-1, 1, 3}), Shape{2, 1, 3}, in);
  expect_tensor(x.reshape({1, 6, 1}), Shape{1, 6, 1}, in);
  // 0 keeps the input's size of that dim.
  expect_tensor(x.reshape({0, -1}), Shape{2, 3}, in);
  expect_tensor(x.reshape({0, 3, 1}), Shape{2, 3, 1}, in);
  expect_tensor(x.reshape<2>(Shape{1, 6}), Shape{1, 6}, in);
  auto ints = iseq<1>({4});
  expect_tensor(ints.reshape({2, 2}), Shape{2, 2}, {0, 1, 2, 3});
}

TEST(ShapeOps, ReshapeSizeZero) {
  auto z = Tensor<2>::zeros({0, 3}, Device::cpu());
  // A 0 in the target keeps the input's size there, so [3, 0] needs -1.
  expect_tensor(z.reshape({3, -1}), Shape{3, 0}, {});
  expect_tensor(z.reshape({-1, 3}), Shape{0, 3}, {});
  expect_tensor(z.reshape({0}), Shape{0}, {});
}

TEST(ShapeOps, Roll) {
  auto x = seq<1>({5}, 1);  // [1, 2, 3, 4, 5]
  expect_tensor(x.roll({2}, {0}), Shape{5}, {4, 5, 1, 2, 3});
  expect_tensor(x.roll({-1}, {0}), Shape{5}, {2, 3, 4, 5, 1});
  expect_tensor(x.roll({7}, {0}), Shape{5}, {4, 5, 1, 2, 3});
  expect_tensor(x.roll({-11}, {0}), Shape{5}, {2, 3, 4, 5, 1});
  expect_tensor(x.roll({0}, {0}), Shape{5}, {1, 2, 3, 4, 5});
  expect_tensor(x.roll({5}, {-1}), Shape{5}, {1, 2, 3, 4, 5});
  // torch.roll(m, (1, -1), (0, 1)): out[i][j] = m[(i - 1) mod 2][(j + 1) mod 3].
  auto m = seq<2>({2, 3});
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) want.push_back(((i + 1) % 2) * 3 + (j + 1) % 3);
  }
  expect_tensor(m.roll({1, -1}, {0, 1}), Shape{2, 3}, want);
  // The same dim twice adds the shifts.
  expect_tensor(x.roll({1, 1}, {0, 0}), Shape{5}, {4, 5, 1, 2, 3});
  auto ints = Tensor<1, Int>::from_data({1, 2, 3}, Device::cpu());
  expect_tensor(ints.roll({1}, {0}), Shape{3}, {3, 1, 2});
}

TEST(ShapeOps, RollDim) {
  auto m = seq<2>({2, 3});
  expect_tensor(m.roll_dim(1, 1), Shape{2, 3}, {2, 0, 1, 5, 3, 4});
  expect_tensor(m.roll_dim(-1, -1), Shape{2, 3}, {1, 2, 0, 4, 5, 3});
  expect_tensor(m.roll_dim(1, 0), Shape{2, 3}, {3, 4, 5, 0, 1, 2});
  expect_tensor(Tensor<2>::zeros({0, 2}, Device::cpu()).roll_dim(3, 0), Shape{0, 2}, {});
}

// ---------------------------------------------------------------- slice

TEST(ShapeOps, SlicePositiveRangesAndSteps) {
  auto x = seq<2>({4, 5});  // x[i][j] = 5 i + j
  expect_tensor(x.slice({Range(1, 3)}), Shape{2, 5}, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  expect_tensor(x.slice({Range(1, 3), Range(0, 5, 2)}), Shape{2, 3}, {5, 7, 9, 10, 12, 14});
  expect_tensor(x.slice({Range::all(), Range(1, 5, 3)}), Shape{4, 2}, {1, 4, 6, 9, 11, 14, 16, 19});
  expect_tensor(x.slice({Range(0, 4, 3), Range::at(2)}), Shape{2, 1}, {2, 17});
  expect_tensor(x.slice({Range::to(1), Range::from(3)}), Shape{1, 2}, {3, 4});
  // A step larger than the range keeps just its first element.
  expect_tensor(x.slice({Range(1, 3, 10), Range(2, 4)}), Shape{1, 2}, {7, 8});
}

TEST(ShapeOps, SliceNegativeIndices) {
  auto x = seq<2>({4, 5});
  expect_tensor(x.slice({Range(-3, -1)}), Shape{2, 5}, {5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  expect_tensor(x.slice({Range::from(-1), Range(-2, 5)}), Shape{1, 2}, {18, 19});
  expect_tensor(x.slice({Range::at(-1), Range::at(-1)}), Shape{1, 1}, {19});
  expect_tensor(x.slice({Range(0, -2, 2), Range(-5, -3)}), Shape{1, 2}, {0, 1});
}

TEST(ShapeOps, SliceEmptyRanges) {
  auto x = seq<2>({3, 4});
  expect_tensor(x.slice({Range(2, 2)}), Shape{0, 4}, {});
  expect_tensor(x.slice({Range::all(), Range(3, 1)}), Shape{3, 0}, {});
  expect_tensor(x.slice({Range::from(3)}), Shape{0, 4}, {});
  expect_tensor(x.slice({Range(1, 1, -1)}), Shape{0, 4}, {});
}

TEST(ShapeOps, SliceEmptyRangeNegativeStep) {
  // An empty range is empty whatever the step's sign (torch: x[3:3] and x[3:1] are empty).
  auto x = seq<1>({3});
  expect_tensor(x.slice({Range(3, 3)}), Shape{0}, {});
  expect_tensor(x.slice({Range(1, 1, -1)}), Shape{0}, {});
  for (Range r :
       {Range(3, 3, -1), Range(3, 1, -1), Range(2, 2, -2), Range::from(3).with_step(-1)}) {
    try {
      expect_tensor(x.slice({r}), Shape{0}, {});
    } catch (const Error& e) {
      ADD_FAILURE() << "Range(" << r.start << ", " << (r.end ? *r.end : 3) << ", " << r.step
                    << ") on [3] threw: " << e.what();
    }
  }
  // slice_fill goes through slice and fails the same way.
  try {
    expect_tensor(x.slice_fill({Range(3, 3, -1)}, 5.0), Shape{3}, {0, 1, 2});
  } catch (const Error& e) {
    ADD_FAILURE() << "slice_fill with Range(3, 3, -1) threw: " << e.what();
  }
}

TEST(ShapeOps, SliceNegativeSteps) {
  auto v = seq<1>({10});  // 0 .. 9
  expect_tensor(v.slice({Range(0, 10, -1)}), Shape{10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  expect_tensor(v.slice({Range::all().with_step(-2)}), Shape{5}, {9, 7, 5, 3, 1});
  // [1, 8) walked backwards from its last element 7 by 3: 7, 4, 1.
  expect_tensor(v.slice({Range(1, 8, -3)}), Shape{3}, {7, 4, 1});
  // [0, 10) by 4 backwards from 9: 9, 5, 1.
  expect_tensor(v.slice({Range(0, 10, -4)}), Shape{3}, {9, 5, 1});
  expect_tensor(v.slice({Range(-3, 10, -1)}), Shape{3}, {9, 8, 7});
  expect_tensor(v.slice({Range(2, -5, -2)}), Shape{2}, {4, 2});
  expect_tensor(v.slice({Range(4, 5, -7)}), Shape{1}, {4});

  // Mixed steps on a matrix: rows [0, 4) by -2 -> 3, 1; cols [1, 5) by 2 -> 1, 3.
  auto m = seq<2>({4, 5});
  expect_tensor(m.slice({Range(0, 4, -2), Range(1, 5, 2)}), Shape{2, 2}, {16, 18, 6, 8});
  expect_tensor(m.slice({Range::at(0), Range::all().with_step(-1)}), Shape{1, 5}, {4, 3, 2, 1, 0});
  auto ints = Tensor<1, Int>::from_data({1, 2, 3, 4}, Device::cpu());
  expect_tensor(ints.slice({Range(0, 4, -3)}), Shape{2}, {4, 1});
}

TEST(ShapeOps, SliceDim) {
  auto x = seq<2>({3, 4});
  expect_tensor(x.slice_dim(1, Range(1, 3)), Shape{3, 2}, {1, 2, 5, 6, 9, 10});
  expect_tensor(x.slice_dim(-2, Range(0, 3, 2)), Shape{2, 4}, {0, 1, 2, 3, 8, 9, 10, 11});
  expect_tensor(x.slice_dim(0, Range(0, 3, -1)), Shape{3, 4},
                {8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3});
  expect_tensor(x.slice_dim(1, Range::at(-1)), Shape{3, 1}, {3, 7, 11});
}

// ---------------------------------------------------------------- slice_assign / slice_fill

TEST(ShapeOps, SliceAssignBlock) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::zeros({3, 4}, cpu);
  auto v = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  expect_tensor(x.slice_assign({Range(1, 3), Range(1, 3)}, v), Shape{3, 4},
                {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0});
  // Fewer ranges than dims: the rest are whole.
  auto row = Tensor<2>::from_data({{5.0, 6.0, 7.0, 8.0}}, cpu);
  expect_tensor(x.slice_assign({Range::at(-1)}, row), Shape{3, 4},
                {0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 8});
  // Negative indices, and the original is untouched.
  expect_tensor(x.slice_assign({Range(-2, -1), Range(-2, 4)}, Tensor<2>::ones({1, 2}, cpu)),
                Shape{3, 4}, {0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0});
  expect_tensor(x, Shape{3, 4}, std::vector<double>(12, 0.0));
}

TEST(ShapeOps, SliceAssignWithSteps) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::zeros({5}, cpu);
  auto v = Tensor<1>::from_data({10.0, 20.0, 30.0}, cpu);
  expect_tensor(x.slice_assign({Range(0, 5, 2)}, v), Shape{5}, {10, 0, 20, 0, 30});
  // Negative step: the selection is 4, 2, 0, so values land there in that order.
  expect_tensor(x.slice_assign({Range(0, 5, -2)}, v), Shape{5}, {30, 0, 20, 0, 10});
  // [1, 5) by -2 selects 4, 2.
  auto w = Tensor<1>::from_data({1.0, 2.0}, cpu);
  expect_tensor(x.slice_assign({Range(1, 5, -2)}, w), Shape{5}, {0, 0, 2, 0, 1});
  // [1, 5) by 3 selects 1, 4.
  expect_tensor(x.slice_assign({Range(1, 5, 3)}, w), Shape{5}, {0, 1, 0, 0, 2});

  // 2-D: rows 0, 2 and cols 3, 1 (cols [0, 4) by -2) of a 3x4 base of -1.
  auto base = Tensor<2>::full({3, 4}, -1.0, cpu);
  auto vals = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  std::vector<double> want(12, -1.0);
  int rows[2] = {0, 2}, cols[2] = {3, 1};
  double vv[2][2] = {{1, 2}, {3, 4}};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) want[rows[i] * 4 + cols[j]] = vv[i][j];
  }
  expect_tensor(base.slice_assign({Range(0, 3, 2), Range(0, 4, -2)}, vals), Shape{3, 4}, want);
}

TEST(ShapeOps, SliceAssignIntBoolAndEmpty) {
  Device cpu = Device::cpu();
  auto x = iseq<2>({2, 3});
  auto v = Tensor<2, Int>::from_data({{-7}, {-8}}, cpu);
  auto y = x.slice_assign({Range::all(), Range(1, 2)}, v);
  EXPECT_EQ(y.dtype(), DType::I32);
  expect_tensor(y, Shape{2, 3}, {0, -7, 2, 3, -8, 5});
  auto b = Tensor<1, Bool>::from_data({false, false, false, false}, cpu);
  auto t = Tensor<1, Bool>::from_data({true, true}, cpu);
  expect_tensor(b.slice_assign({Range(1, 4, 2)}, t), Shape{4}, {0, 1, 0, 1});
  // An empty selection assigns nothing.
  auto none = Tensor<2, Int>::zeros({0, 3}, cpu);
  expect_tensor(x.slice_assign({Range(1, 1)}, none), Shape{2, 3}, {0, 1, 2, 3, 4, 5});
}

TEST(ShapeOps, SliceFill) {
  auto x = seq<2>({3, 4});
  // Rows 0, 2 and cols 1, 3 become -1.
  std::vector<double> want = iota_values(12);
  for (int i : {0, 2}) {
    for (int j : {1, 3}) want[i * 4 + j] = -1;
  }
  expect_tensor(x.slice_fill({Range(0, 3, 2), Range(1, 4, 2)}, -1.0), Shape{3, 4}, want);
  // A negative step selects the same positions backwards: [1, 4) by -2 is 3, 1.
  expect_tensor(x.slice_fill({Range(0, 3, 2), Range(1, 4, -2)}, -1.0), Shape{3, 4}, want);
  expect_tensor(x.slice_fill({Range::at(1)}, 0.5), Shape{3, 4},
                {0, 1, 2, 3, 0.5, 0.5, 0.5, 0.5, 8, 9, 10, 11});
  expect_tensor(x.slice_fill({Range(1, 1)}, 99.0), Shape{3, 4}, iota_values(12));
  auto ints = iseq<1>({5});
  expect_tensor(ints.slice_fill({Range(-2, 5)}, 9), Shape{5}, {0, 1, 2, 9, 9});
  auto b = Tensor<1, Bool>::from_data({false, false, false}, Device::cpu());
  expect_tensor(b.slice_fill({Range(0, 3, 2)}, true), Shape{3}, {1, 0, 1});
}

// ---------------------------------------------------------------- squeeze / unsqueeze / swap

TEST(ShapeOps, Squeeze) {
  auto x = seq<3>({2, 1, 3});
  expect_tensor(x.squeeze(1), Shape{2, 3}, iota_values(6));
  expect_tensor(x.squeeze(-2), Shape{2, 3}, iota_values(6));
  auto y = seq<2>({1, 1});
  expect_tensor(y.squeeze<1>(0), Shape{1}, {0});
  auto z = Tensor<3>::zeros({1, 0, 2}, Device::cpu());
  expect_tensor(z.squeeze(0), Shape{0, 2}, {});
}

TEST(ShapeOps, SqueezeDims) {
  auto x = seq<4>({1, 2, 1, 3});
  expect_tensor(x.squeeze_dims<2>({0, 2}), Shape{2, 3}, iota_values(6));
  expect_tensor(x.squeeze_dims<2>({-2, 0}), Shape{2, 3}, iota_values(6));
  expect_tensor(x.squeeze_dims<3>({2}), Shape{1, 2, 3}, iota_values(6));
  // No dims: every size-1 dim goes.
  expect_tensor(x.squeeze_dims<2>({}), Shape{2, 3}, iota_values(6));
  auto y = seq<3>({1, 4, 1});
  expect_tensor(y.squeeze_dims<1>({}), Shape{4}, iota_values(4));
}

TEST(ShapeOps, SwapDims) {
  auto x = seq<3>({2, 3, 4});
  auto in = iota_values(24);
  expect_tensor(x.swap_dims(0, 2), Shape{4, 3, 2}, ref_permute(in, {2, 3, 4}, {2, 1, 0}));
  expect_tensor(x.swap_dims(-1, -3), Shape{4, 3, 2}, ref_permute(in, {2, 3, 4}, {2, 1, 0}));
  expect_tensor(x.swap_dims(0, 1), Shape{3, 2, 4}, ref_permute(in, {2, 3, 4}, {1, 0, 2}));
  expect_tensor(x.swap_dims(1, 1), Shape{2, 3, 4}, in);
}

TEST(ShapeOps, Transpose) {
  auto m = seq<2>({2, 3});
  expect_tensor(m.transpose(), Shape{3, 2}, {0, 3, 1, 4, 2, 5});
  auto x = seq<3>({2, 3, 4});
  expect_tensor(x.transpose(), Shape{2, 4, 3}, ref_permute(iota_values(24), {2, 3, 4}, {0, 2, 1}));
  auto v = seq<1>({3});
  expect_tensor(v.transpose(), Shape{3}, {0, 1, 2});
  auto b = Tensor<2, Bool>::from_data({{true, false}, {false, false}}, Device::cpu());
  expect_tensor(b.transpose(), Shape{2, 2}, {1, 0, 0, 0});
}

TEST(ShapeOps, Unsqueeze) {
  auto m = seq<2>({2, 3});
  expect_tensor(m.unsqueeze<3>(), Shape{1, 2, 3}, iota_values(6));
  expect_tensor(m.unsqueeze<4>(), Shape{1, 1, 2, 3}, iota_values(6));
  expect_tensor(m.unsqueeze<2>(), Shape{2, 3}, iota_values(6));
}

TEST(ShapeOps, UnsqueezeDim) {
  auto m = seq<2>({2, 3});
  expect_tensor(m.unsqueeze_dim(0), Shape{1, 2, 3}, iota_values(6));
  expect_tensor(m.unsqueeze_dim(1), Shape{2, 1, 3}, iota_values(6));
  expect_tensor(m.unsqueeze_dim(2), Shape{2, 3, 1}, iota_values(6));
  expect_tensor(m.unsqueeze_dim(-1), Shape{2, 3, 1}, iota_values(6));
  expect_tensor(m.unsqueeze_dim(-3), Shape{1, 2, 3}, iota_values(6));
  auto ints = Tensor<1, Int>::from_data({4, 5}, Device::cpu());
  expect_tensor(ints.unsqueeze_dim(1), Shape{2, 1}, {4, 5});
}

TEST(ShapeOps, UnsqueezeDims) {
  auto m = seq<2>({2, 3});
  expect_tensor(m.unsqueeze_dims<4>({0, 2}), Shape{1, 2, 1, 3}, iota_values(6));
  expect_tensor(m.unsqueeze_dims<4>({2, 0}), Shape{1, 2, 1, 3}, iota_values(6));
  expect_tensor(m.unsqueeze_dims<4>({1, 2}), Shape{2, 1, 1, 3}, iota_values(6));
  expect_tensor(m.unsqueeze_dims<4>({0, -1}), Shape{1, 2, 3, 1}, iota_values(6));
  expect_tensor(m.unsqueeze_dims<5>({0, 1, 4}), Shape{1, 1, 2, 3, 1}, iota_values(6));
  expect_tensor(m.unsqueeze_dims<2>({}), Shape{2, 3}, iota_values(6));
}

// ---------------------------------------------------------------- pad

TEST(ShapeOps, PadLastDimsFirst) {
  auto m = seq<2>({2, 3}, 1);  // [[1, 2, 3], [4, 5, 6]]
  // One pair: the last dim.
  expect_tensor(m.pad({{1, 2}}, 9.0), Shape{2, 6}, {9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9});
  // Second pair: dim 0.
  expect_tensor(m.pad({{0, 1}, {1, 0}}, 0.0), Shape{3, 4}, {0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0});
  expect_tensor(m.pad({{0, 0}, {0, 2}}, -1.0), Shape{4, 3},
                {1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1});
  expect_tensor(m.pad({}, 5.0), Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  auto ints = Tensor<1, Int>::from_data({1, 2}, Device::cpu());
  auto pi = ints.pad({{2, 1}}, 7);
  EXPECT_EQ(pi.dtype(), DType::I32);
  expect_tensor(pi, Shape{5}, {7, 7, 1, 2, 7});
}

TEST(ShapeOps, PadNegativeCrops) {
  auto m = seq<2>({2, 3}, 1);  // [[1, 2, 3], [4, 5, 6]]
  expect_tensor(m.pad({{-1, 1}}, 7.0), Shape{2, 3}, {2, 3, 7, 5, 6, 7});
  expect_tensor(m.pad({{0, -2}}, 7.0), Shape{2, 1}, {1, 4});
  expect_tensor(m.pad({{1, -1}, {-1, 0}}, 0.0), Shape{1, 3}, {0, 4, 5});
  expect_tensor(m.pad({{-3, 0}}, 0.0), Shape{2, 0}, {});
}

// ---------------------------------------------------------------- information and data

TEST(ShapeOps, DimsShapeDtypeDevice) {
  Device cpu = Device::cpu();
  auto x = Tensor<3>::zeros({2, 0, 4}, cpu);
  std::array<int64_t, 3> want = {2, 0, 4};
  EXPECT_EQ(x.dims(), want);
  EXPECT_EQ(x.shape(), (Shape{2, 0, 4}));
  EXPECT_EQ(x.num_elements(), 0);
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(x.device(), cpu);
  auto i = Tensor<2, Int>::ones({1, 5}, cpu);
  EXPECT_EQ(i.dtype(), DType::I32);
  EXPECT_EQ(i.dims()[1], 5);
  auto b = Tensor<1, Bool>::from_data({true}, cpu);
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.shape(), (Shape{1}));
  auto f64 = Tensor<2>::zeros({3, 2}, cpu, DType::F64);
  EXPECT_EQ(f64.dtype(), DType::F64);
  EXPECT_EQ(f64.transpose().dims()[0], 2);
  // Shapes are known before anything runs.
  auto lazy = seq<2>({2, 3}).transpose().reshape({-1});
  EXPECT_FALSE(lazy.raw().is_materialized());
  EXPECT_EQ(lazy.dims()[0], 6);
}

TEST(ShapeOps, ToDeviceCpuKeepsValues) {
  Device cpu = Device::cpu();
  auto x = seq<2>({2, 2}).transpose();
  auto y = x.to_device(cpu);
  EXPECT_EQ(y.device(), cpu);
  expect_tensor(y, Shape{2, 2}, {0, 2, 1, 3});
  auto b = Tensor<1, Bool>::from_data({false, true}, cpu).to_device(cpu);
  expect_tensor(b, Shape{2}, {0, 1});
}

TEST(ShapeOps, EqualAndNotEqual) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto b = Tensor<2>::from_data({{1.0, 0.0}, {3.0, -4.0}}, cpu);
  auto eq = a.equal(b);
  EXPECT_EQ(eq.dtype(), DType::Bool);
  expect_tensor(eq, Shape{2, 2}, {1, 0, 1, 0});
  expect_tensor(a.not_equal(b), Shape{2, 2}, {0, 1, 0, 1});
  auto i = Tensor<1, Int>::from_data({1, 2, 3}, cpu);
  auto j = Tensor<1, Int>::from_data({3, 2, 1}, cpu);
  expect_tensor(i.equal(j), Shape{3}, {0, 1, 0});
  expect_tensor(i.not_equal(j), Shape{3}, {1, 0, 1});
  auto p = Tensor<1, Bool>::from_data({true, true, false, false}, cpu);
  auto q = Tensor<1, Bool>::from_data({true, false, true, false}, cpu);
  expect_tensor(p.equal(q), Shape{4}, {1, 0, 0, 1});
  expect_tensor(p.not_equal(q), Shape{4}, {0, 1, 1, 0});
  // NaN is not equal to itself.
  auto n = Tensor<1>::from_data({std::nan(""), 1.0}, cpu);
  expect_tensor(n.equal(n), Shape{2}, {0, 1});
  expect_tensor(n.not_equal(n), Shape{2}, {1, 0});
}

TEST(ShapeOps, AllAnyAndTheirDims) {
  Device cpu = Device::cpu();
  auto f = Tensor<2>::from_data({{1.0, 0.0}, {2.0, 3.0}}, cpu);
  expect_tensor(f.all(), Shape{1}, {0});
  expect_tensor(f.any(), Shape{1}, {1});
  expect_tensor(f.all_dim(0), Shape{1, 2}, {1, 0});
  expect_tensor(f.all_dim(1), Shape{2, 1}, {0, 1});
  expect_tensor(f.any_dim(-1), Shape{2, 1}, {1, 1});
  auto i = Tensor<2, Int>::from_data({{0, 0}, {0, 5}}, cpu);
  expect_tensor(i.any(), Shape{1}, {1});
  expect_tensor(i.all(), Shape{1}, {0});
  expect_tensor(i.any_dim(1), Shape{2, 1}, {0, 1});
  auto b = Tensor<2, Bool>::from_data({{true, true}, {false, true}}, cpu);
  expect_tensor(b.all(), Shape{1}, {0});
  expect_tensor(b.all_dim(0), Shape{1, 2}, {0, 1});
  expect_tensor(b.any_dim(0), Shape{1, 2}, {1, 1});
  auto t = Tensor<1, Bool>::from_data({true, true}, cpu);
  expect_tensor(t.all(), Shape{1}, {1});
  auto zf = Tensor<1>::zeros({3}, cpu);
  expect_tensor(zf.any(), Shape{1}, {0});
}

TEST(ShapeOps, AllAnyOnSizeZero) {
  // As torch: all() of nothing is true, any() of nothing is false.
  auto z = Tensor<2>::zeros({0, 3}, Device::cpu());
  expect_tensor(z.all(), Shape{1}, {1});
  expect_tensor(z.any(), Shape{1}, {0});
  expect_tensor(z.all_dim(0), Shape{1, 3}, {1, 1, 1});
  expect_tensor(z.any_dim(0), Shape{1, 3}, {0, 0, 0});
  expect_tensor(z.all_dim(1), Shape{0, 1}, {});
}

TEST(ShapeOps, Empty) {
  auto e = Tensor<2>::empty({2, 3}, Device::cpu());
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(e.dtype(), DType::F32);
  EXPECT_EQ(e.to_data().num_elements(), 6);
  auto ei = Tensor<1, Int>::empty({0}, Device::cpu());
  EXPECT_EQ(ei.dtype(), DType::I32);
  EXPECT_EQ(ei.to_data().num_elements(), 0);
}

TEST(ShapeOps, IntoDataAndToData) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.5, -2.0, 3.0}, {4.0, 5.0, 6.25}}, cpu);
  TensorData d = x.to_data();
  EXPECT_EQ(d.shape(), (Shape{2, 3}));
  EXPECT_EQ(d.dtype(), DType::F32);
  auto s = d.as_slice<float>();
  std::vector<float> want = {1.5f, -2.0f, 3.0f, 4.0f, 5.0f, 6.25f};
  ASSERT_EQ(s.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(s[k], want[k]) << k;
  EXPECT_EQ(x.into_data(), d);
  // A non-contiguous view is packed row-major.
  TensorData t = x.transpose().into_data();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  std::vector<float> want_t = {1.5f, 4.0f, -2.0f, 5.0f, 3.0f, 6.25f};
  auto st = t.as_slice<float>();
  for (size_t k = 0; k < want_t.size(); ++k) EXPECT_EQ(st[k], want_t[k]) << k;

  auto i = Tensor<1, Int>::from_data({-1, 7}, cpu);
  TensorData di = i.into_data();
  EXPECT_EQ(di.dtype(), DType::I32);
  EXPECT_EQ(di.as_slice<int32_t>()[0], -1);
  EXPECT_EQ(di.as_slice<int32_t>()[1], 7);
  auto b = Tensor<1, Bool>::from_data({true, false, true}, cpu);
  TensorData db = b.to_data();
  EXPECT_EQ(db.dtype(), DType::Bool);
  EXPECT_EQ(db.to_vec<bool>(), (std::vector<bool>{true, false, true}));
}

TEST(ShapeOps, PrimitiveRoundTripAndIntoScalar) {
  Device cpu = Device::cpu();
  auto x = seq<2>({2, 3}).transpose();
  RawTensor raw = x.into_primitive();
  EXPECT_EQ(raw.shape(), (Shape{3, 2}));
  EXPECT_EQ(raw.dtype(), DType::F32);
  auto back = Tensor<2>::from_primitive(raw);
  expect_tensor(back, Shape{3, 2}, {0, 3, 1, 4, 2, 5});
  EXPECT_EQ(Tensor<1>::from_data({2.5}, cpu).into_scalar(), 2.5);
  EXPECT_EQ(seq<2>({2, 3}).slice({Range::at(1), Range::at(2)}).into_scalar(), 5.0);
  auto i = Tensor<2, Int>::from_data({{-4}}, cpu);
  EXPECT_EQ(i.into_scalar(), -4);
  auto b = Tensor<1, Bool>::from_data({true}, cpu);
  EXPECT_TRUE(b.into_scalar());
}

TEST(ShapeOps, FromDataNestedListsRankOneToThree) {
  Device cpu = Device::cpu();
  expect_tensor(Tensor<1>::from_data({1.0, 2.5}, cpu), Shape{2}, {1, 2.5});
  expect_tensor(Tensor<2>::from_data({{1.0, 2.0, 3.0}}, cpu), Shape{1, 3}, {1, 2, 3});
  auto r3 = Tensor<3>::from_data(
      {{{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}, {{7.0, 8.0}, {9.0, 10.0}, {11.0, 12.0}}}, cpu);
  EXPECT_EQ(r3.dtype(), DType::F32);
  expect_tensor(r3, Shape{2, 3, 2}, iota_values(12, 1));
  expect_tensor(Tensor<2>::from_floats({{1.0}, {2.0}}, cpu), Shape{2, 1}, {1, 2});

  auto i2 = Tensor<2, Int>::from_data({{1, -2}, {3, 4}}, cpu);
  EXPECT_EQ(i2.dtype(), DType::I32);
  expect_tensor(i2, Shape{2, 2}, {1, -2, 3, 4});
  expect_tensor(Tensor<3, Int>::from_ints({{{5}}, {{6}}}, cpu), Shape{2, 1, 1}, {5, 6});
  auto b1 = Tensor<1, Bool>::from_bool({true, false}, cpu);
  EXPECT_EQ(b1.dtype(), DType::Bool);
  expect_tensor(b1, Shape{2}, {1, 0});
  expect_tensor(Tensor<3, Bool>::from_data({{{true}, {false}}, {{false}, {true}}}, cpu),
                Shape{2, 2, 1}, {1, 0, 0, 1});
}

TEST(ShapeOps, FromDataEmptyListsAndTensorData) {
  Device cpu = Device::cpu();
  auto e1 = Tensor<1>::from_data(NestedList<double, 1>{}, cpu);
  expect_tensor(e1, Shape{0}, {});
  auto e2 = Tensor<2>::from_data(NestedList<double, 2>{}, cpu);
  expect_tensor(e2, Shape{0, 0}, {});
  auto e2b = Tensor<2>::from_data(NestedList<double, 2>{{}, {}}, cpu);
  expect_tensor(e2b, Shape{2, 0}, {});
  // TensorData of a dtype of the kind keeps it; of another kind converts to the default.
  auto f64 = Tensor<2>::from_data(TensorData(std::vector<double>{1, 2, 3, 4}, Shape{2, 2}), cpu);
  EXPECT_EQ(f64.dtype(), DType::F64);
  expect_tensor(f64, Shape{2, 2}, {1, 2, 3, 4});
  auto from_floats =
      Tensor<1, Int>::from_data(TensorData(std::vector<float>{1.0f, -2.0f, 3.0f}), cpu);
  EXPECT_EQ(from_floats.dtype(), DType::I32);
  expect_tensor(from_floats, Shape{3}, {1, -2, 3});
  auto i64 = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{1, 2}), cpu);
  EXPECT_EQ(i64.dtype(), DType::I64);
}

// ---------------------------------------------------------------- size-0 and size-1 dims

TEST(ShapeOps, SizeZeroDimsThroughViews) {
  Device cpu = Device::cpu();
  auto z = Tensor<2>::zeros({0, 3}, cpu);
  auto t = z.transpose();
  EXPECT_EQ(t.shape(), (Shape{3, 0}));
  // Summing an empty dim gives zeros.
  expect_tensor(t.sum_dim(1), Shape{3, 1}, {0, 0, 0});
  expect_tensor(z.flip({0, 1}), Shape{0, 3}, {});
  expect_tensor(z.permute({1, 0}).reshape({3, 0, 1}), Shape{3, 0, 1}, {});
  expect_tensor(z.unsqueeze_dim(1).expand({0, 2, 3}), Shape{0, 2, 3}, {});
  expect_tensor(z.slice({Range::all(), Range(1, 3)}), Shape{0, 2}, {});
  expect_tensor(z + 1.0, Shape{0, 3}, {});
  expect_tensor(z.pad({{0, 0}, {1, 1}}, 4.0), Shape{2, 3}, {4, 4, 4, 4, 4, 4});
}

TEST(ShapeOps, SizeOneDimsBroadcastAndReduce) {
  Device cpu = Device::cpu();
  auto row = Tensor<2>::from_data({{1.0, 2.0, 3.0}}, cpu);
  auto col = Tensor<2>::from_data({{10.0}, {20.0}}, cpu);
  std::vector<double> want;
  for (double c : {10.0, 20.0}) {
    for (double r : {1.0, 2.0, 3.0}) want.push_back(r + c);
  }
  expect_tensor(row + col, Shape{2, 3}, want);
  auto one = Tensor<3>::from_data({{{4.0}}}, cpu);
  expect_tensor(one.sum_dim(1), Shape{1, 1, 1}, {4});
  expect_tensor(one.squeeze_dims<1>({0, 1}), Shape{1}, {4});
  expect_tensor(one.expand({2, 1, 2}).flip({0}), Shape{2, 1, 2}, {4, 4, 4, 4});
}

// ---------------------------------------------------------------- non-contiguous views feeding ops

TEST(ShapeOps, TransposeSliceThenAdd) {
  auto x = seq<2>({3, 4});                             // x[i][j] = 4 i + j
  auto t = x.transpose();                              // t[a][b] = x[b][a], [4, 3]
  auto v = t.slice({Range(1, 4, 2), Range(0, 3, 2)});  // rows 1, 3; cols 0, 2 -> [2, 2]
  auto other = seq<2>({2, 2}, 100);
  std::vector<double> want;
  int rows[2] = {1, 3}, cols[2] = {0, 2};
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) want.push_back(cols[b] * 4 + rows[a] + 100 + a * 2 + b);
  }
  expect_tensor(v + other, Shape{2, 2}, want);
  expect_tensor(other + v, Shape{2, 2}, want);
}

TEST(ShapeOps, FlipThenMatmul) {
  auto a = seq<2>({2, 3}).flip({1});     // [[2, 1, 0], [5, 4, 3]]
  auto b = seq<2>({3, 2}, 1).flip({0});  // [[5, 6], [3, 4], [1, 2]]
  double av[2][3] = {{2, 1, 0}, {5, 4, 3}};
  double bv[3][2] = {{5, 6}, {3, 4}, {1, 2}};
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += av[i][k] * bv[k][j];
      want.push_back(s);
    }
  }
  expect_tensor(a.matmul(b), Shape{2, 2}, want);
}

TEST(ShapeOps, TransposeThenMatmul) {
  auto x = seq<2>({3, 2}, 1);  // [[1, 2], [3, 4], [5, 6]]
  // x^T x: [2, 2], entry (i, j) = sum_k x[k][i] x[k][j].
  double xv[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += xv[k][i] * xv[k][j];
      want.push_back(s);
    }
  }
  expect_tensor(x.transpose().matmul(x), Shape{2, 2}, want);
  // Batched: a permuted rank-3 tensor on the left.
  auto y = seq<3>({2, 2, 3});        // y[b][i][k] = 6 b + 3 i + k
  auto left = y.permute({0, 2, 1});  // [2, 3, 2]: left[b][k][i] = y[b][i][k]
  auto right = Tensor<3>::ones({2, 2, 1}, Device::cpu());
  std::vector<double> want_b;
  for (int b = 0; b < 2; ++b) {
    for (int k = 0; k < 3; ++k) want_b.push_back((6 * b + k) + (6 * b + 3 + k));
  }
  expect_tensor(left.matmul(right), Shape{2, 3, 1}, want_b);
}

TEST(ShapeOps, ExpandThenSumDim) {
  Device cpu = Device::cpu();
  auto col = Tensor<2>::from_data({{1.0}, {2.0}, {3.0}}, cpu);
  expect_tensor(col.expand({3, 4}).sum_dim(1), Shape{3, 1}, {4, 8, 12});
  expect_tensor(col.expand({3, 4}).sum_dim(0), Shape{1, 4}, {6, 6, 6, 6});
  auto v = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  expect_tensor(v.expand({2, 3}).sum_dim(0), Shape{1, 3}, {2, 4, 6});
  expect_tensor(v.expand({2, 3}).sum(), Shape{1}, {12});
  auto ints = Tensor<2, Int>::from_data({{2, 5}}, cpu);
  expect_tensor(ints.expand({3, 2}).sum_dim(0), Shape{1, 2}, {6, 15});
}

TEST(ShapeOps, PermuteThenReshape) {
  auto x = seq<3>({2, 3, 4});
  // The permuted values in row-major order, then viewed as [4, 6].
  auto want = ref_permute(iota_values(24), {2, 3, 4}, {2, 0, 1});
  expect_tensor(x.permute({2, 0, 1}).reshape({4, 6}), Shape{4, 6}, want);
  expect_tensor(x.permute({2, 0, 1}).flatten<1>(0, 2), Shape{24}, want);
  // Merging only the last two permuted dims.
  expect_tensor(x.swap_dims(0, 1).reshape({3, 8}), Shape{3, 8},
                ref_permute(iota_values(24), {2, 3, 4}, {1, 0, 2}));
}

TEST(ShapeOps, SteppedSliceThenReshapeAndReduce) {
  auto x = seq<2>({4, 6});                             // x[i][j] = 6 i + j
  auto s = x.slice({Range(0, 4, 2), Range(1, 6, 2)});  // rows 0, 2; cols 1, 3, 5
  std::vector<double> want;
  for (int i : {0, 2}) {
    for (int j : {1, 3, 5}) want.push_back(6 * i + j);
  }
  expect_tensor(s.reshape({6}), Shape{6}, want);
  expect_tensor(s.reshape({3, 2}), Shape{3, 2}, want);
  expect_tensor(s.sum_dim(1), Shape{2, 1},
                {want[0] + want[1] + want[2], want[3] + want[4] + want[5]});
  // Negative-step slice then max along dim 0.
  auto r = x.slice({Range(0, 4, -1), Range(0, 6, -3)});  // rows 3..0; cols 5, 2
  expect_tensor(r, Shape{4, 2}, {23, 20, 17, 14, 11, 8, 5, 2});
  expect_tensor(r.max_dim(0), Shape{1, 2}, {23, 20});
}

TEST(ShapeOps, ViewsFeedingCatStackAndPad) {
  auto x = seq<2>({2, 3});                                  // [[0, 1, 2], [3, 4, 5]]
  auto t = x.transpose();                                   // [[0, 3], [1, 4], [2, 5]]
  auto f = x.flip({1}).slice({Range::all(), Range(0, 2)});  // [[2, 1], [5, 4]]
  expect_tensor(Tensor<2>::cat({t, f}, 0), Shape{5, 2}, {0, 3, 1, 4, 2, 5, 2, 1, 5, 4});
  expect_tensor(Tensor<2>::stack({f, f.transpose()}, 0), Shape{2, 2, 2}, {2, 1, 5, 4, 2, 5, 1, 4});
  expect_tensor(t.pad({{1, 0}}, -1.0), Shape{3, 3}, {-1, 0, 3, -1, 1, 4, -1, 2, 5});
  expect_tensor(t.roll_dim(1, 0), Shape{3, 2}, {2, 5, 0, 3, 1, 4});
  expect_tensor(t.repeat({1, 2}), Shape{3, 4}, {0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5});
}

TEST(ShapeOps, ViewsAsSliceAssignValuesAndTargets) {
  Device cpu = Device::cpu();
  auto base = Tensor<2>::zeros({3, 3}, cpu);
  auto vals = seq<2>({2, 3}, 1).transpose();  // [[1, 4], [2, 5], [3, 6]]
  expect_tensor(base.slice_assign({Range::all(), Range(1, 3)}, vals), Shape{3, 3},
                {0, 1, 4, 0, 2, 5, 0, 3, 6});
  // The target is itself a view.
  auto target = seq<2>({3, 3}).flip({0});  // [[6, 7, 8], [3, 4, 5], [0, 1, 2]]
  auto one = Tensor<2>::from_data({{-1.0}}, cpu);
  expect_tensor(target.slice_assign({Range::at(1), Range::at(1)}, one), Shape{3, 3},
                {6, 7, 8, 3, -1, 5, 0, 1, 2});
  expect_tensor(target.transpose().slice_fill({Range::at(0)}, 9.0), Shape{3, 3},
                {9, 9, 9, 7, 4, 1, 8, 5, 2});
}

TEST(ShapeOps, ChainedViewsThenElementwiseAndReduce) {
  auto x = seq<3>({2, 3, 4});  // x[a][b][c] = 12 a + 4 b + c
  // permute -> [4, 2, 3] (p[c][a][b]), flip dim 0 -> c' = 3 - c, slice rows [1, 3) -> c' in 1, 2
  // i.e. c = 2, 1; then * 2 and sum over the last dim.
  auto y = x.permute({2, 0, 1}).flip({0}).slice({Range(1, 3)}).mul_scalar(2.0).sum_dim(2);
  std::vector<double> want;
  for (int c : {2, 1}) {
    for (int a = 0; a < 2; ++a) {
      double s = 0;
      for (int b = 0; b < 3; ++b) s += 2.0 * (12 * a + 4 * b + c);
      want.push_back(s);
    }
  }
  expect_tensor(y, Shape{2, 2, 1}, want);
  // Broadcasting a transposed view against an expanded one.
  auto m = seq<2>({2, 3});
  auto e = Tensor<1>::from_data({10.0, 20.0}, Device::cpu()).expand({3, 2});
  std::vector<double> want2;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) want2.push_back((3 * j + i) * (j == 0 ? 10 : 20));
  }
  expect_tensor(m.transpose() * e, Shape{3, 2}, want2);
}

TEST(ShapeOps, ExpandedViewsFeedingOps) {
  Device cpu = Device::cpu();
  auto v = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  auto e = v.unsqueeze_dim(1).expand({3, 2});  // [[1, 1], [2, 2], [3, 3]]
  expect_tensor(e.reshape({6}), Shape{6}, {1, 1, 2, 2, 3, 3});
  expect_tensor(e.transpose().reshape({6}), Shape{6}, {1, 2, 3, 1, 2, 3});
  expect_tensor(e.flip({0}).slice({Range(0, 3, 2)}), Shape{2, 2}, {3, 3, 1, 1});
  expect_tensor(Tensor<2>::cat({e, e.flip({0})}, 1), Shape{3, 4},
                {1, 1, 3, 3, 2, 2, 2, 2, 3, 3, 1, 1});
  expect_tensor(e.pad({{1, 0}, {0, 1}}, 0.0), Shape{4, 3}, {0, 1, 1, 0, 2, 2, 0, 3, 3, 0, 0, 0});
  // [3, 2] expanded times [2, 2]: entry (i, j) = sum_k v[i] * w[k][j].
  auto w = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  std::vector<double> want;
  for (double vi : {1.0, 2.0, 3.0}) {
    want.push_back(vi * (1 + 3));
    want.push_back(vi * (2 + 4));
  }
  expect_tensor(e.matmul(w), Shape{3, 2}, want);
  expect_tensor(
      Tensor<2>::zeros({3, 2}, cpu).slice_assign({Range(0, 3, 2)}, e.slice({Range(1, 3)})),
      Shape{3, 2}, {2, 2, 0, 0, 3, 3});
  expect_tensor(e.roll({1, 1}, {0, 1}), Shape{3, 2}, {3, 3, 1, 1, 2, 2});
}

TEST(ShapeOps, IntAndBoolViewsFeedingOps) {
  Device cpu = Device::cpu();
  auto i = iseq<2>({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  expect_tensor(i.transpose().flip({0}) + i.transpose(), Shape{3, 2}, {2, 8, 2, 8, 2, 8});
  expect_tensor(i.permute({1, 0}).reshape({6}), Shape{6}, {0, 3, 1, 4, 2, 5});
  auto b = Tensor<2, Bool>::from_data({{true, false, false}, {true, true, false}}, cpu);
  expect_tensor(b.transpose().any_dim(1), Shape{3, 1}, {1, 1, 0});
  expect_tensor(b.flip({1}).equal(b), Shape{2, 3}, {0, 1, 0, 0, 1, 0});
  expect_tensor(b.slice({Range::all(), Range(0, 3, 2)}).all_dim(0), Shape{1, 2}, {1, 0});
}

// ---------------------------------------------------------------- randomized cross-checks

// Dense reference values: a shape and row-major contents.
struct Dense {
  std::vector<int64_t> dims;
  std::vector<double> v;
};

int64_t count_of(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// out[c_0, .., c_{r-1}] = in at coordinate idx[k][c_k] along input axis perm[k].
Dense remap(const Dense& in, const std::vector<int>& perm,
            const std::vector<std::vector<int64_t>>& idx) {
  Dense out;
  int r = static_cast<int>(perm.size());
  for (int k = 0; k < r; ++k) out.dims.push_back(static_cast<int64_t>(idx[k].size()));
  std::vector<int64_t> is = row_major_strides(in.dims), os = row_major_strides(out.dims);
  out.v.resize(static_cast<size_t>(count_of(out.dims)));
  for (size_t f = 0; f < out.v.size(); ++f) {
    int64_t src = 0;
    for (int k = 0; k < r; ++k) {
      int64_t c = (static_cast<int64_t>(f) / os[k]) % out.dims[k];
      src += idx[k][c] * is[perm[k]];
    }
    out.v[f] = in.v[src];
  }
  return out;
}

// A random Range over a dim of size n and the indices it selects, by Ember's rule (a negative
// step walks [start, end) backwards from its last element). Empty ranges use a positive step
// (see SliceEmptyRangeNegativeStep).
Range random_range(std::mt19937& rng, int64_t n, std::vector<int64_t>& picked) {
  auto rnd = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int64_t start = rnd(0, n), end = rnd(start, n), mag = rnd(1, 3);
  bool backwards = rnd(0, 1) == 1;
  std::vector<int64_t> forward;
  for (int64_t i = start; i < end; i += mag) forward.push_back(i);
  picked.clear();
  for (size_t j = 0; j < forward.size(); ++j) {
    picked.push_back(backwards ? end - 1 - static_cast<int64_t>(j) * mag : forward[j]);
  }
  if (picked.empty()) backwards = false;
  // Sometimes spell the start from the end of the dim.
  int64_t spelled = (start < n && rnd(0, 1) == 1) ? start - n : start;
  return Range(spelled, end, backwards ? -mag : mag);
}

TEST(ShapeOps, RandomViewChainsMatchLoopReference) {
  // Chains of flip / permute / stepped slices / reshape / expand on rank-3 tensors, then an
  // elementwise op and a reduction, compared with the same chain applied to plain vectors.
  std::mt19937 rng(20240611);
  auto rnd = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int failures = 0;
  for (int trial = 0; trial < 400 && failures < 5; ++trial) {
    Dense d{{rnd(1, 4), rnd(1, 4), rnd(1, 4)}, {}};
    d.v = iota_values(count_of(d.dims));
    Tensor<3> t = seq<3>(Shape(d.dims));
    std::string log;
    int steps = static_cast<int>(rnd(1, 5));
    for (int s = 0; s < steps; ++s) {
      std::vector<int> identity = {0, 1, 2};
      std::vector<std::vector<int64_t>> idx(3);
      switch (rnd(0, 4)) {
        case 0: {  // flip a random subset of axes
          std::vector<int64_t> axes;
          for (int k = 0; k < 3; ++k) {
            bool f = rnd(0, 1) == 1;
            if (f) axes.push_back(k);
            for (int64_t i = 0; i < d.dims[k]; ++i) idx[k].push_back(f ? d.dims[k] - 1 - i : i);
          }
          t = t.flip(axes);
          d = remap(d, identity, idx);
          log += " flip";
          break;
        }
        case 1: {  // permute
          std::vector<int> perm = {0, 1, 2};
          std::shuffle(perm.begin(), perm.end(), rng);
          for (int k = 0; k < 3; ++k) {
            for (int64_t i = 0; i < d.dims[perm[k]]; ++i) idx[k].push_back(i);
          }
          t = t.permute({perm[0], perm[1], perm[2]});
          d = remap(d, perm, idx);
          log += " permute";
          break;
        }
        case 2: {  // slice every dim with a random range
          std::vector<Range> ranges;
          for (int k = 0; k < 3; ++k) ranges.push_back(random_range(rng, d.dims[k], idx[k]));
          t = t.slice(ranges);
          d = remap(d, identity, idx);
          log += " slice";
          break;
        }
        case 3: {  // reshape to [a, 1, n / a] or [1, a, n / a]; the values keep their order
          int64_t n = count_of(d.dims);
          if (n == 0) break;
          std::vector<int64_t> nd = {1, 1, n};
          for (int64_t a = 1; a <= n; ++a) {
            if (n % a == 0 && rnd(0, 2) == 0) nd = {a, 1, n / a};
          }
          if (rnd(0, 1) == 1) std::swap(nd[0], nd[1]);
          t = t.reshape({nd[0], nd[1], nd[2]});
          d.dims = nd;
          log += " reshape";
          break;
        }
        default: {  // expand the size-1 dims
          std::vector<int64_t> nd = d.dims;
          for (int k = 0; k < 3; ++k) {
            if (nd[k] == 1) nd[k] = rnd(1, 3);
            for (int64_t i = 0; i < nd[k]; ++i) idx[k].push_back(d.dims[k] == 1 ? 0 : i);
          }
          t = t.expand({nd[0], nd[1], nd[2]});
          d = remap(d, identity, idx);
          log += " expand";
          break;
        }
      }
    }
    TensorData got = (t * 2.0 + 1.0).to_data();
    std::vector<double> gv = got.to_vec<double>();
    bool bad = got.shape().vector() != d.dims || gv.size() != d.v.size();
    for (size_t i = 0; !bad && i < gv.size(); ++i) bad = gv[i] != d.v[i] * 2 + 1;
    if (!bad) {
      std::vector<double> sums = t.sum_dim(2).to_data().to_vec<double>();
      for (int64_t ab = 0; !bad && ab < d.dims[0] * d.dims[1]; ++ab) {
        double acc = 0;
        for (int64_t c = 0; c < d.dims[2]; ++c) acc += d.v[ab * d.dims[2] + c];
        bad = sums[ab] != acc;
      }
    }
    if (bad) {
      ++failures;
      ADD_FAILURE() << "trial " << trial << ", ops:" << log << ", got " << got.to_string();
    }
  }
}

TEST(ShapeOps, RandomSliceAssignAndFillMatchLoopReference) {
  std::mt19937 rng(77);
  auto rnd = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int failures = 0;
  for (int trial = 0; trial < 400 && failures < 5; ++trial) {
    std::vector<int64_t> dims = {rnd(1, 5), rnd(1, 5)};
    Tensor<2> x = seq<2>(Shape(dims));
    std::vector<double> base = iota_values(dims[0] * dims[1]);
    bool transposed = rnd(0, 1) == 1;  // assign into a non-contiguous view half of the time
    if (transposed) {
      x = x.transpose();
      base = ref_permute(base, dims, {1, 0});
      std::swap(dims[0], dims[1]);
    }
    std::vector<std::vector<int64_t>> idx(2);
    std::vector<Range> ranges = {random_range(rng, dims[0], idx[0]),
                                 random_range(rng, dims[1], idx[1])};
    int64_t r0 = static_cast<int64_t>(idx[0].size()), r1 = static_cast<int64_t>(idx[1].size());
    Tensor<2> v = seq<2>({r0, r1}, 100);
    std::vector<double> want = base, want_fill = base;
    for (int64_t a = 0; a < r0; ++a) {
      for (int64_t b = 0; b < r1; ++b) {
        want[idx[0][a] * dims[1] + idx[1][b]] = 100 + a * r1 + b;
        want_fill[idx[0][a] * dims[1] + idx[1][b]] = -1;
      }
    }
    std::vector<double> got = x.slice_assign(ranges, v).to_data().to_vec<double>();
    std::vector<double> got_fill = x.slice_fill(ranges, -1.0).to_data().to_vec<double>();
    if (got != want || got_fill != want_fill) {
      ++failures;
      ADD_FAILURE() << "trial " << trial << ": dims " << dims[0] << "x" << dims[1]
                    << (transposed ? " (transposed)" : "") << ", ranges (" << ranges[0].start
                    << ", " << *ranges[0].end << ", " << ranges[0].step << "), (" << ranges[1].start
                    << ", " << *ranges[1].end << ", " << ranges[1].step << ")";
    }
  }
}

}  // namespace
}  // namespace ember
