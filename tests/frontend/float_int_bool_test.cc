// The Float, Int and Bool tables of the Burn Book, and dtype coverage. Expected values are worked
// out by hand, with <cmath>, or with plain loops (PyTorch semantics).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

using testing::kInf;
using testing::kNaN;

using testing::map;

Tensor<1> vec(const std::vector<double>& xs) {
  std::vector<float> f(xs.begin(), xs.end());
  return Tensor<1>::from_data(TensorData(f), Device::cpu());
}

// ---------------------------------------------------------------- Float: casts

TEST(FloatCast, HalfRoundTrip) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({0.1, 1.5, -2.25, 1024.0, 3.14159}, cpu);
  auto h = x.cast(DType::F16);
  EXPECT_EQ(h.dtype(), DType::F16);
  // Nearest f16 values (10-bit mantissa): 0.1 -> 0.0999755859375, 3.14159 -> 3.140625.
  std::vector<double> want = {0.0999755859375, 1.5, -2.25, 1024, 3.140625};
  expect_tensor(h, Shape{5}, want, 0);
  auto back = h.cast(DType::F32);
  EXPECT_EQ(back.dtype(), DType::F32);
  expect_tensor(back, Shape{5}, want, 0);
  // 70000 is above the largest f16 (65504).
  expect_tensor(Tensor<1>::from_floats({70000.0, -70000.0}, cpu).cast(DType::F16), Shape{2},
                {kInf, -kInf});
}

TEST(FloatCast, BFloat16RoundTrip) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({0.1, 1.5, -2.25, 1024.0, 3.14159}, cpu);
  auto b = x.cast(DType::BF16);
  EXPECT_EQ(b.dtype(), DType::BF16);
  // Round to nearest even on the top 16 bits of the f32: 0.1f = 0x3DCCCCCD -> 0x3DCD.
  std::vector<double> want = {0.10009765625, 1.5, -2.25, 1024, 3.140625};
  expect_tensor(b, Shape{5}, want, 0);
  expect_tensor(b.cast(DType::F32), Shape{5}, want, 0);
  expect_tensor(Tensor<1>::from_floats({1e38}, cpu).cast(DType::BF16).is_finite(), Shape{1}, {1});
}

TEST(FloatCast, DoubleRoundTripIsExact) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({0.1, -1.0 / 3.0, 1e-30, 3e38}, cpu);
  auto d = x.cast(DType::F64);
  EXPECT_EQ(d.dtype(), DType::F64);
  std::vector<double> got = d.to_data().to_vec<double>();
  EXPECT_EQ(got[0], static_cast<double>(0.1f));
  EXPECT_EQ(got[1], static_cast<double>(static_cast<float>(-1.0 / 3.0)));
  EXPECT_EQ(got[2], static_cast<double>(1e-30f));
  EXPECT_EQ(got[3], static_cast<double>(3e38f));
  EXPECT_TRUE(d.cast(DType::F32).to_data() == x.to_data());
  // f64 -> f32 rounds to nearest.
  auto y = Tensor<1>::from_data(TensorData(std::vector<double>{0.1, 1e300}), cpu);
  EXPECT_EQ(y.dtype(), DType::F64);
  std::vector<float> f = y.cast(DType::F32).to_data().to_vec<float>();
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], std::numeric_limits<float>::infinity());
}

TEST(FloatCast, OtherKindThrowsAndFullPrecision) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_floats({1.5, -2.0}, cpu);
  expect_error([&] { auto bad = x.cast(DType::I32); }, {});
  auto h = x.cast(DType::F16);
  auto full = h.to_full_precision();
  EXPECT_EQ(full.dtype(), DType::F32);
  expect_tensor(full, Shape{2}, {1.5, -2.0}, 0);
  auto back = Tensor<1>::from_full_precision(full, DType::BF16);
  EXPECT_EQ(back.dtype(), DType::BF16);
  expect_tensor(back, Shape{2}, {1.5, -2.0}, 0);
}

TEST(FloatCreate, FromFloats) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_floats({{1, 2.5}, {-3, 0.25}}, cpu);
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(x.device(), cpu);
  expect_tensor(x, Shape{2, 2}, {1, 2.5, -3, 0.25}, 0);
  auto dims = x.dims();
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 2);
}

TEST(FloatCast, IntTruncatesTowardZero) {
  Device cpu = Device::cpu();
  auto i = Tensor<1>::from_floats({1.7, -1.7, 2.0, -0.5, 100.99}, cpu).int_();
  EXPECT_EQ(i.dtype(), DType::I32);
  expect_tensor(i, Shape{5}, {1, -1, 2, 0, 100}, 0);
}

// ---------------------------------------------------------------- Float: elementwise math

TEST(FloatMath, Rounding) {
  std::vector<double> xs = {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -2.6, 3.0};
  auto x = vec(xs);
  expect_tensor(x.ceil(), Shape{9}, map(xs, [](double v) { return std::ceil(v); }), 0);
  expect_tensor(x.floor(), Shape{9}, map(xs, [](double v) { return std::floor(v); }), 0);
  // Half to even, as torch.round.
  expect_tensor(x.round(), Shape{9}, {-2, -2, -0, 0, 2, 2, 3, -3, 3}, 0);
  expect_tensor(vec({0.49999997, 1e7 + 1, -3.5, 4.5}).round(), Shape{4}, {0, 1e7 + 1, -4, 4}, 0);
  expect_tensor(vec({kNaN, kInf, -kInf}).round(), Shape{3}, {kNaN, kInf, -kInf}, 0);
  expect_tensor(vec({kNaN, kInf, -kInf}).floor(), Shape{3}, {kNaN, kInf, -kInf}, 0);
  expect_tensor(vec({kNaN, kInf, -kInf}).ceil(), Shape{3}, {kNaN, kInf, -kInf}, 0);
}

TEST(FloatMath, Trigonometric) {
  std::vector<double> xs = {-1.25, -0.5, 0.0, 0.5, 2.0};
  auto x = vec(xs);
  expect_tensor(x.sin(), Shape{5}, map(xs, [](double v) { return std::sin(v); }));
  expect_tensor(x.cos(), Shape{5}, map(xs, [](double v) { return std::cos(v); }));
  expect_tensor(x.tan(), Shape{5}, map(xs, [](double v) { return std::tan(v); }));
  expect_tensor(x.sinh(), Shape{5}, map(xs, [](double v) { return std::sinh(v); }));
  expect_tensor(x.cosh(), Shape{5}, map(xs, [](double v) { return std::cosh(v); }));
  expect_tensor(x.tanh(), Shape{5}, map(xs, [](double v) { return std::tanh(v); }));
  // Large arguments: tanh saturates without NaN, sinh/cosh overflow f32 to infinity.
  auto big = vec({-100.0, 100.0, 20.0, -kInf, kInf});
  expect_tensor(big.tanh(), Shape{5}, {-1, 1, std::tanh(20.0), -1, 1});
  expect_tensor(vec({-100.0, 100.0}).sinh(), Shape{2}, {-kInf, kInf});
  expect_tensor(vec({-100.0, 100.0}).cosh(), Shape{2}, {kInf, kInf});
}

TEST(FloatMath, ExpLogErf) {
  std::vector<double> xs = {-2.0, -0.5, 0.0, 0.75, 3.0};
  auto x = vec(xs);
  expect_tensor(x.exp(), Shape{5}, map(xs, [](double v) { return std::exp(v); }));
  expect_tensor(x.erf(), Shape{5}, map(xs, [](double v) { return std::erf(v); }));
  std::vector<double> ps = {0.25, 1.0, 2.0, 10.0, 1e-3};
  auto p = vec(ps);
  expect_tensor(p.log(), Shape{5},
                map(ps, [](double v) { return std::log(static_cast<double>(float(v))); }));
  expect_tensor(p.log1p(), Shape{5},
                map(ps, [](double v) { return std::log1p(static_cast<double>(float(v))); }));
  expect_tensor(p.sqrt(), Shape{5},
                map(ps, [](double v) { return std::sqrt(static_cast<double>(float(v))); }));
  // Special values.
  expect_tensor(vec({-kInf, kInf, 100.0}).exp(), Shape{3}, {0, kInf, kInf});
  expect_tensor(vec({0.0, -1.0, kInf}).log(), Shape{3}, {-kInf, kNaN, kInf});
  expect_tensor(vec({-1.0, -2.0}).log1p(), Shape{2}, {-kInf, kNaN});
  expect_tensor(vec({-1.0, 0.0, kInf}).sqrt(), Shape{3}, {kNaN, 0, kInf});
  expect_tensor(vec({-kInf, kInf, 10.0}).erf(), Shape{3}, {-1, 1, 1});
  // log1p keeps precision for tiny arguments (log(1 + x) would round to 0 in f32).
  float tiny = 1e-7f;
  double got = vec({tiny}).log1p().to_data().to_vec<double>()[0];
  EXPECT_NEAR(got, std::log1p(static_cast<double>(tiny)), 1e-13);
}

TEST(FloatMath, LongAndStridedInputsMatchCmath) {
  Device cpu = Device::cpu();
  // Lengths that are not a multiple of any vector width, plus a transposed (strided) view.
  const int n = 1003;
  std::vector<float> v(n), w(n);
  for (int i = 0; i < n; ++i) {
    v[i] = static_cast<float>(-10.0 + 20.0 * i / (n - 1));
    w[i] = static_cast<float>(0.5 + (i % 17) * 0.25);
  }
  std::vector<double> vd(v.begin(), v.end()), wd(w.begin(), w.end());
  auto x = Tensor<1>::from_data(TensorData(v), cpu);
  auto y = Tensor<1>::from_data(TensorData(w), cpu);
  expect_tensor(x.exp(), Shape{n}, map(vd, [](double a) { return std::exp(a); }));
  expect_tensor(x.tanh(), Shape{n}, map(vd, [](double a) { return std::tanh(a); }));
  expect_tensor(x.sin(), Shape{n}, map(vd, [](double a) { return std::sin(a); }));
  expect_tensor(x.erf(), Shape{n}, map(vd, [](double a) { return std::erf(a); }));
  expect_tensor(y.log(), Shape{n}, map(wd, [](double a) { return std::log(a); }));
  expect_tensor(y.sqrt(), Shape{n}, map(wd, [](double a) { return std::sqrt(a); }));
  std::vector<double> sum, prod, quot, mx, rem;
  for (int i = 0; i < n; ++i) {
    sum.push_back(vd[i] + wd[i]);
    prod.push_back(vd[i] * wd[i]);
    quot.push_back(vd[i] / wd[i]);
    mx.push_back(std::max(vd[i], wd[i]));
    double r = std::fmod(vd[i], wd[i]);
    rem.push_back(r != 0 && (r < 0) != (wd[i] < 0) ? r + wd[i] : r);
  }
  expect_tensor(x + y, Shape{n}, sum);
  expect_tensor(x * y, Shape{n}, prod);
  expect_tensor(x / y, Shape{n}, quot);
  expect_tensor(x.max_pair(y), Shape{n}, mx);
  expect_tensor(x % y, Shape{n}, rem, 1e-4);
  // A [29, 37] block read through its transpose.
  std::vector<float> m(29 * 37);
  for (int i = 0; i < 29 * 37; ++i) m[i] = static_cast<float>((i * 13) % 101) / 10.0f - 5.0f;
  auto mt = Tensor<2>::from_data(TensorData(m, Shape{29, 37}), cpu).transpose();
  std::vector<double> want, want_sum;
  for (int j = 0; j < 37; ++j) {
    double s = 0;
    for (int i = 0; i < 29; ++i) {
      want.push_back(std::exp(m[i * 37 + j]) * 2.0);
      s += m[i * 37 + j];
    }
    want_sum.push_back(s);
  }
  expect_tensor(mt.exp() * 2.0, Shape{37, 29}, want);
  expect_tensor(mt.sum_dim(1), Shape{37, 1}, want_sum, 1e-4);
}

TEST(FloatMath, Recip) {
  expect_tensor(vec({2.0, -4.0, 0.5, 0.0, -kInf}).recip(), Shape{5}, {0.5, -0.25, 2, kInf, -0.0});
  std::vector<float> neg_zero = {-0.0f};
  auto r = Tensor<1>::from_data(TensorData(neg_zero), Device::cpu()).recip();
  EXPECT_EQ(r.to_data().to_vec<double>()[0], -kInf);
}

TEST(FloatMath, Predicates) {
  auto x = vec({1.0, kInf, -kInf, kNaN, 0.0, -3.5});
  auto fin = x.is_finite();
  EXPECT_EQ(fin.dtype(), DType::Bool);
  expect_tensor(fin, Shape{6}, {1, 0, 0, 0, 1, 1});
  expect_tensor(x.is_inf(), Shape{6}, {0, 1, 1, 0, 0, 0});
  expect_tensor(x.is_nan(), Shape{6}, {0, 0, 0, 1, 0, 0});
}

TEST(FloatMath, IsClose) {
  auto a = vec({1.0, 2.0, kNaN, kInf, 100.0, 0.0});
  auto b = vec({1.000005, 2.1, kNaN, kInf, 100.002, 1e-9});
  // torch.isclose (rtol 1e-5, atol 1e-8): |a - b| <= atol + rtol * |b|; NaN never close.
  expect_tensor(a.is_close(b), Shape{6}, {1, 0, 0, 1, 0, 1});
  expect_tensor(a.is_close(b, 0.0, 0.2), Shape{6}, {1, 1, 0, 1, 1, 1});
  expect_tensor(a.is_close(b, 1e-4, 0.0), Shape{6}, {1, 0, 0, 1, 1, 0});
}

TEST(FloatMath, IsCloseInfinities) {
  // torch.isclose: infinities are close only to an equal infinity.
  auto a = vec({kInf, 1.0, -kInf, kInf});
  auto b = vec({-kInf, kInf, 1.0, 1e30});
  // As torch.isclose: an infinity is close only to the same infinity.
  expect_tensor(a.is_close(b), Shape{4}, {0, 0, 0, 0});
}

// ---------------------------------------------------------------- Float: matmul

// Row-major reference product of [m, k] x [k, n] blocks at the given offsets.
void ref_mm(const std::vector<float>& a, size_t ao, const std::vector<float>& b, size_t bo, int m,
            int k, int n, std::vector<double>& out) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += double(a[ao + i * k + p]) * double(b[bo + p * n + j]);
      out.push_back(s);
    }
  }
}

std::vector<float> seq(int n, float scale, float shift) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7) % 11) * scale + shift;
  return v;
}

TEST(FloatMatmul, TwoD) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::from_floats({{1, 2, 3}, {4, 5, 6}}, cpu);
  auto b = Tensor<2>::from_floats({{7, 8}, {9, 10}, {11, 12}}, cpu);
  expect_tensor(a.matmul(b), Shape{2, 2}, {58, 64, 139, 154});
  // Non-square with a loop reference.
  auto av = seq(4 * 5, 0.5f, -2.0f), bv = seq(5 * 3, 0.25f, -1.0f);
  std::vector<double> want;
  ref_mm(av, 0, bv, 0, 4, 5, 3, want);
  auto c = Tensor<2>::from_data(TensorData(av, Shape{4, 5}), cpu)
               .matmul(Tensor<2>::from_data(TensorData(bv, Shape{5, 3}), cpu));
  expect_tensor(c, Shape{4, 3}, want);
  // Row times column.
  auto r = Tensor<2>::from_floats({{1, 2, 3, 4}}, cpu);
  auto col = Tensor<2>::from_floats({{1}, {-1}, {2}, {0.5}}, cpu);
  expect_tensor(r.matmul(col), Shape{1, 1}, {1 - 2 + 6 + 2});
  expect_tensor(col.matmul(r), Shape{4, 4},
                {1, 2, 3, 4, -1, -2, -3, -4, 2, 4, 6, 8, 0.5, 1, 1.5, 2});
  expect_tensor(Tensor<2, Int>::from_ints({{1, 2}, {3, 4}}, cpu)
                    .matmul(Tensor<2, Int>::from_ints({{5, 6}, {7, 8}}, cpu)),
                Shape{2, 2}, {19, 22, 43, 50});
}

TEST(FloatMatmul, EmptyInnerDimGivesZeros) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::ones({2, 0}, cpu);
  auto b = Tensor<2>::ones({0, 3}, cpu);
  expect_tensor(a.matmul(b), Shape{2, 3}, {0, 0, 0, 0, 0, 0});
  expect_error(
      [&] {
        auto bad = Tensor<2>::ones({2, 3}, cpu).matmul(Tensor<2>::ones({2, 3}, cpu));
      },
      {"matmul"});
}

TEST(FloatMatmul, TransposedViewInputs) {
  Device cpu = Device::cpu();
  // a is stored [3, 2] and used as its transpose [2, 3]; b stored [4, 3], used as [3, 4].
  auto as = seq(6, 1.0f, -3.0f), bs = seq(12, 0.5f, -1.5f);
  auto a = Tensor<2>::from_data(TensorData(as, Shape{3, 2}), cpu).transpose();
  auto b = Tensor<2>::from_data(TensorData(bs, Shape{4, 3}), cpu).swap_dims(0, 1);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int p = 0; p < 3; ++p) s += double(as[p * 2 + i]) * double(bs[j * 3 + p]);
      want.push_back(s);
    }
  }
  expect_tensor(a.matmul(b), Shape{2, 4}, want);
  // x^T x on a batched input via transpose (last two dims).
  auto xs = seq(2 * 3 * 2, 1.0f, -4.0f);
  auto x = Tensor<3>::from_data(TensorData(xs, Shape{2, 3, 2}), cpu);
  std::vector<double> gram;
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        double s = 0;
        for (int p = 0; p < 3; ++p)
          s += double(xs[n * 6 + p * 2 + i]) * double(xs[n * 6 + p * 2 + j]);
        gram.push_back(s);
      }
    }
  }
  expect_tensor(x.transpose().matmul(x), Shape{2, 2, 2}, gram);
}

TEST(FloatMatmul, BatchedWithBroadcast) {
  Device cpu = Device::cpu();
  // [2, 2, 3] x [1, 3, 2] -> [2, 2, 2]: b is shared by both batches.
  auto av = seq(12, 0.5f, -1.0f), bv = seq(6, 1.0f, -2.0f);
  std::vector<double> want;
  for (int n = 0; n < 2; ++n) ref_mm(av, n * 6, bv, 0, 2, 3, 2, want);
  auto a = Tensor<3>::from_data(TensorData(av, Shape{2, 2, 3}), cpu);
  auto b = Tensor<3>::from_data(TensorData(bv, Shape{1, 3, 2}), cpu);
  expect_tensor(a.matmul(b), Shape{2, 2, 2}, want);
  // [1, 2, 3] x [3, 3, 4] -> [3, 2, 4]: a is shared.
  auto cv = seq(6, 1.0f, 0.0f), dv = seq(36, 0.25f, -1.0f);
  std::vector<double> want2;
  for (int n = 0; n < 3; ++n) ref_mm(cv, 0, dv, n * 12, 2, 3, 4, want2);
  auto c = Tensor<3>::from_data(TensorData(cv, Shape{1, 2, 3}), cpu);
  auto d = Tensor<3>::from_data(TensorData(dv, Shape{3, 3, 4}), cpu);
  expect_tensor(c.matmul(d), Shape{3, 2, 4}, want2);
  // Rank 4, size-1 batch dims on both sides: [2, 1, 2, 3] x [1, 3, 3, 2] -> [2, 3, 2, 2].
  auto ev = seq(12, 1.0f, -5.0f), fv = seq(18, 0.5f, 0.0f);
  std::vector<double> want3;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) ref_mm(ev, i * 6, fv, j * 6, 2, 3, 2, want3);
  auto e = Tensor<4>::from_data(TensorData(ev, Shape{2, 1, 2, 3}), cpu);
  auto f = Tensor<4>::from_data(TensorData(fv, Shape{1, 3, 3, 2}), cpu);
  expect_tensor(e.matmul(f), Shape{2, 3, 2, 2}, want3);
}

// ---------------------------------------------------------------- Float: random

struct Moments {
  double mean, std, lo, hi;
};
Moments moments(const std::vector<double>& v) {
  double s = 0, lo = v[0], hi = v[0];
  for (double x : v) {
    s += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  double m = s / v.size(), q = 0;
  for (double x : v) q += (x - m) * (x - m);
  return {m, std::sqrt(q / (v.size() - 1)), lo, hi};
}

TEST(FloatRandom, DefaultAndUniform) {
  Device cpu = Device::cpu();
  seed(1234);
  auto d = Tensor<2>::random({100, 100}, Distribution::default_(), cpu);
  EXPECT_EQ(d.shape(), (Shape{100, 100}));
  EXPECT_EQ(d.dtype(), DType::F32);
  Moments md = moments(d.to_data().to_vec<double>());
  EXPECT_GE(md.lo, 0.0);
  EXPECT_LT(md.hi, 1.0);
  EXPECT_NEAR(md.mean, 0.5, 0.02);
  EXPECT_NEAR(md.std, std::sqrt(1.0 / 12), 0.01);
  auto u = Tensor<1>::random({10000}, Distribution::uniform(-3.0, 5.0), cpu);
  Moments mu = moments(u.to_data().to_vec<double>());
  EXPECT_GE(mu.lo, -3.0);
  EXPECT_LT(mu.hi, 5.0);
  EXPECT_NEAR(mu.mean, 1.0, 0.15);
  EXPECT_NEAR(mu.std, 8.0 / std::sqrt(12.0), 0.08);
  EXPECT_LT(mu.lo, -2.9);  // the whole range is covered
  EXPECT_GT(mu.hi, 4.9);
}

TEST(FloatRandom, NormalAndBernoulli) {
  Device cpu = Device::cpu();
  seed(99);
  auto n = Tensor<1>::random({20000}, Distribution::normal(2.0, 0.5), cpu);
  Moments mn = moments(n.to_data().to_vec<double>());
  EXPECT_NEAR(mn.mean, 2.0, 0.02);
  EXPECT_NEAR(mn.std, 0.5, 0.02);
  EXPECT_LT(mn.lo, 0.5);  // some draws beyond 3 sigma of 20000
  EXPECT_GT(mn.hi, 3.5);
  auto b = Tensor<1>::random({10000}, Distribution::bernoulli(0.3), cpu);
  std::vector<double> bv = b.to_data().to_vec<double>();
  for (double v : bv) ASSERT_TRUE(v == 0.0 || v == 1.0) << v;
  EXPECT_NEAR(moments(bv).mean, 0.3, 0.02);
  auto none = Tensor<1>::random({100}, Distribution::bernoulli(0.0), cpu);
  EXPECT_EQ(moments(none.to_data().to_vec<double>()).hi, 0.0);
  expect_error([&] { auto bad = Tensor<1>::random({4}, Distribution::bernoulli(1.5), cpu); },
               {"bernoulli"});
}

TEST(FloatRandom, SeedReproducibility) {
  Device cpu = Device::cpu();
  for (auto dist : {Distribution::default_(), Distribution::uniform(-1, 1),
                    Distribution::normal(0, 1), Distribution::bernoulli(0.5)}) {
    seed(7);
    TensorData a = Tensor<2>::random({8, 16}, dist, cpu).to_data();
    TensorData a2 = Tensor<2>::random({8, 16}, dist, cpu).to_data();
    seed(7);
    TensorData b = Tensor<2>::random({8, 16}, dist, cpu).to_data();
    TensorData b2 = Tensor<2>::random({8, 16}, dist, cpu).to_data();
    seed(8);
    TensorData c = Tensor<2>::random({8, 16}, dist, cpu).to_data();
    EXPECT_TRUE(a == b);
    EXPECT_TRUE(a2 == b2);
    EXPECT_FALSE(a == a2);  // successive draws differ
    EXPECT_FALSE(a == c);   // another seed differs
  }
}

TEST(FloatRandom, RandomLike) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::zeros({50, 40}, cpu, DType::F64);
  seed(5);
  auto r = x.random_like(Distribution::uniform(2.0, 3.0));
  EXPECT_EQ(r.dtype(), DType::F64);
  EXPECT_EQ(r.shape(), (Shape{50, 40}));
  Moments m = moments(r.to_data().to_vec<double>());
  EXPECT_GE(m.lo, 2.0);
  EXPECT_LT(m.hi, 3.0);
  EXPECT_NEAR(m.mean, 2.5, 0.03);
}

// ---------------------------------------------------------------- Float: variance

TEST(FloatVar, VarAndBias) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_floats({{1, 2, 3, 4}, {2, 4, 6, 8}}, cpu);
  // Row 0: mean 2.5, squared deviations sum 5; row 1: mean 5, sum 20.
  expect_tensor(x.var(1), Shape{2, 1}, {5.0 / 3, 20.0 / 3});
  expect_tensor(x.var_bias(1), Shape{2, 1}, {5.0 / 4, 20.0 / 4});
  // Columns: pairs (1,2), (2,4), (3,6), (4,8).
  expect_tensor(x.var(0), Shape{1, 4}, {0.5, 2, 4.5, 8});
  expect_tensor(x.var_bias(0), Shape{1, 4}, {0.25, 1, 2.25, 4});
  auto [v, m] = x.var_mean(1);
  expect_tensor(v, Shape{2, 1}, {5.0 / 3, 20.0 / 3});
  expect_tensor(m, Shape{2, 1}, {2.5, 5});
  auto [vb, mb] = x.var_mean_bias(-1);
  expect_tensor(vb, Shape{2, 1}, {1.25, 5});
  expect_tensor(mb, Shape{2, 1}, {2.5, 5});
  // Large offset: a two-pass variance stays accurate.
  auto y = Tensor<1>::from_floats({10000.0, 10001.0, 10002.0}, cpu);
  expect_tensor(y.var(0), Shape{1}, {1.0});
  // One element: the unbiased variance is NaN (0 / 0), the biased one 0.
  auto one = Tensor<2>::from_floats({{5.0}}, cpu);
  expect_tensor(one.var(1), Shape{1, 1}, {kNaN});
  expect_tensor(one.var_bias(1), Shape{1, 1}, {0});
  // An empty dim: NaN (0 / 0) like mean, biased or not; was -0.0 (0 / -1) for the unbiased one.
  auto empty = Tensor<2>::zeros(Shape{2, 0}, cpu);
  expect_tensor(empty.var(1), Shape{2, 1}, {kNaN, kNaN});
  expect_tensor(empty.var_bias(1), Shape{2, 1}, {kNaN, kNaN});
  expect_tensor(empty.mean_dim(1), Shape{2, 1}, {kNaN, kNaN});
}

// ---------------------------------------------------------------- Int table

TEST(IntOps, Arange) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::arange(2, 7, cpu);
  EXPECT_EQ(a.dtype(), DType::I32);
  expect_tensor(a, Shape{5}, {2, 3, 4, 5, 6});
  expect_tensor(Tensor<1, Int>::arange(-3, 1, cpu), Shape{4}, {-3, -2, -1, 0});
  EXPECT_EQ((Tensor<1, Int>::arange(5, 5, cpu).shape()), (Shape{0}));
  expect_tensor(Tensor<1, Int>::arange_step(0, 10, 3, cpu), Shape{4}, {0, 3, 6, 9});
  expect_tensor(Tensor<1, Int>::arange_step(5, 10, 2, cpu), Shape{3}, {5, 7, 9});
  expect_tensor(Tensor<1, Int>::arange_step(0, 1, 5, cpu), Shape{1}, {0});
  // torch.arange(10, 0, -3)
  expect_tensor(Tensor<1, Int>::arange_step(10, 0, -3, cpu), Shape{4}, {10, 7, 4, 1});
  expect_error([&] { Tensor<1, Int>::arange_step(0, 5, 0, cpu); }, {"step"});
}

TEST(IntOps, FromIntsAndFloat) {
  Device cpu = Device::cpu();
  auto x = Tensor<2, Int>::from_ints({{1, -2}, {3, 40000}}, cpu);
  EXPECT_EQ(x.dtype(), DType::I32);
  expect_tensor(x, Shape{2, 2}, {1, -2, 3, 40000}, 0);
  auto f = x.float_();
  EXPECT_EQ(f.dtype(), DType::F32);
  expect_tensor(f, Shape{2, 2}, {1, -2, 3, 40000}, 0);
  expect_tensor(f / 2.0, Shape{2, 2}, {0.5, -1, 1.5, 20000}, 0);
}

TEST(IntOps, Bitwise) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::from_ints({12, 10, -1, 0}, cpu);
  auto b = Tensor<1, Int>::from_ints({10, 6, 5, 3}, cpu);
  expect_tensor(a.bitwise_and(b), Shape{4}, {12 & 10, 10 & 6, -1 & 5, 0 & 3}, 0);
  expect_tensor(a.bitwise_or(b), Shape{4}, {12 | 10, 10 | 6, -1 | 5, 0 | 3}, 0);
  expect_tensor(a.bitwise_xor(b), Shape{4}, {12 ^ 10, 10 ^ 6, -1 ^ 5, 0 ^ 3}, 0);
  expect_tensor(a.bitwise_not(), Shape{4}, {-13, -11, 0, -1}, 0);
  expect_tensor(a.bitwise_and_scalar(6), Shape{4}, {4, 2, 6, 0}, 0);
  expect_tensor(a.bitwise_or_scalar(1), Shape{4}, {13, 11, -1, 1}, 0);
  expect_tensor(a.bitwise_xor_scalar(5), Shape{4}, {9, 15, -6, 5}, 0);
}

TEST(IntOps, Shifts) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Int>::from_ints({1, 3, 5, -4}, cpu);
  expect_tensor(a.bitwise_left_shift(Tensor<1, Int>::from_ints({1, 2, 3, 1}, cpu)), Shape{4},
                {2, 12, 40, -8}, 0);
  expect_tensor(a.bitwise_left_shift_scalar(4), Shape{4}, {16, 48, 80, -64}, 0);
  auto c = Tensor<1, Int>::from_ints({16, -16, 7, 1024}, cpu);
  // Arithmetic shift for signed values, as torch.bitwise_right_shift.
  expect_tensor(c.bitwise_right_shift(Tensor<1, Int>::from_ints({2, 2, 1, 10}, cpu)), Shape{4},
                {4, -4, 3, 1}, 0);
  expect_tensor(c.bitwise_right_shift_scalar(1), Shape{4}, {8, -8, 3, 512}, 0);
}

TEST(IntOps, IntRandom) {
  Device cpu = Device::cpu();
  seed(3);
  auto r = Tensor<1, Int>::int_random({2000}, Distribution::uniform(0, 10), cpu);
  EXPECT_EQ(r.dtype(), DType::I32);
  std::set<int64_t> seen;
  for (int64_t v : r.to_data().to_vec<int64_t>()) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);
  seed(3);
  auto r2 = Tensor<1, Int>::int_random({2000}, Distribution::uniform(0, 10), cpu);
  EXPECT_TRUE(r.to_data() == r2.to_data());
  auto neg = Tensor<2, Int>::random({30, 30}, Distribution::uniform(-5, -2), cpu);
  std::set<int64_t> seen2;
  for (int64_t v : neg.to_data().to_vec<int64_t>()) seen2.insert(v);
  EXPECT_EQ(seen2, (std::set<int64_t>{-5, -4, -3}));
}

TEST(IntOps, CartesianGrid) {
  Device cpu = Device::cpu();
  auto g = Tensor<2, Int>::cartesian_grid({2, 3}, cpu);
  EXPECT_EQ(g.dtype(), DType::I32);
  expect_tensor(g, Shape{2, 3, 2}, {0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}, 0);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 1; ++j)
      for (int k = 0; k < 3; ++k) want.insert(want.end(), {double(i), double(j), double(k)});
  expect_tensor(Tensor<3, Int>::cartesian_grid({2, 1, 3}, cpu), Shape{2, 1, 3, 3}, want, 0);
  expect_tensor(Tensor<1, Int>::cartesian_grid({3}, cpu), Shape{3, 1}, {0, 1, 2}, 0);
}

// ---------------------------------------------------------------- Bool table

TEST(BoolOps, TriangleMasksFromBrief) {
  Device cpu = Device::cpu();
  // Burn: true marks what is masked out.
  expect_tensor(Tensor<2, Bool>::triu_mask({3, 3}, 0, cpu), Shape{3, 3},
                {0, 0, 0, 1, 0, 0, 1, 1, 0}, 0);
  expect_tensor(Tensor<2, Bool>::tril_mask({2, 3}, 0, cpu), Shape{2, 3}, {0, 1, 1, 0, 0, 1}, 0);
  expect_tensor(Tensor<2, Bool>::diag_mask({3, 3}, 1, cpu), Shape{3, 3},
                {1, 0, 1, 1, 1, 0, 1, 1, 1}, 0);
  EXPECT_EQ((Tensor<2, Bool>::diag_mask({3, 3}, 0, cpu).dtype()), DType::Bool);
}

TEST(BoolOps, TriangleMasksLoops) {
  Device cpu = Device::cpu();
  for (int d : {-2, -1, 0, 1, 3}) {
    std::vector<double> lo, up, dg;
    for (int b = 0; b < 2; ++b) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          lo.push_back(j - i > d);   // tril keeps j - i <= d
          up.push_back(j - i < d);   // triu keeps j - i >= d
          dg.push_back(j - i != d);  // diag keeps j - i == d
        }
      }
    }
    SCOPED_TRACE(d);
    expect_tensor(Tensor<3, Bool>::tril_mask({2, 3, 4}, d, cpu), Shape{2, 3, 4}, lo, 0);
    expect_tensor(Tensor<3, Bool>::triu_mask({2, 3, 4}, d, cpu), Shape{2, 3, 4}, up, 0);
    expect_tensor(Tensor<3, Bool>::diag_mask({2, 3, 4}, d, cpu), Shape{2, 3, 4}, dg, 0);
  }
}

TEST(BoolOps, Logic) {
  Device cpu = Device::cpu();
  auto a = Tensor<1, Bool>::from_bool({true, true, false, false}, cpu);
  auto b = Tensor<1, Bool>::from_bool({true, false, true, false}, cpu);
  expect_tensor(a.bool_and(b), Shape{4}, {1, 0, 0, 0}, 0);
  expect_tensor(a.bool_or(b), Shape{4}, {1, 1, 1, 0}, 0);
  expect_tensor(a.bool_not(), Shape{4}, {0, 0, 1, 1}, 0);
  EXPECT_EQ(a.bool_and(b).dtype(), DType::Bool);
}

TEST(BoolOps, Conversions) {
  Device cpu = Device::cpu();
  auto a = Tensor<2, Bool>::from_bool({{true, false}, {false, true}}, cpu);
  auto f = a.float_();
  EXPECT_EQ(f.dtype(), DType::F32);
  expect_tensor(f, Shape{2, 2}, {1, 0, 0, 1}, 0);
  auto i = a.int_();
  EXPECT_EQ(i.dtype(), DType::I32);
  expect_tensor(i, Shape{2, 2}, {1, 0, 0, 1}, 0);
  expect_tensor(i + 1, Shape{2, 2}, {2, 1, 1, 2}, 0);
}

TEST(BoolOps, ArgwhereAndNonzero) {
  Device cpu = Device::cpu();
  auto a = Tensor<2, Bool>::from_bool({{true, false, true}, {false, true, false}}, cpu);
  auto w = a.argwhere();
  EXPECT_TRUE(is_int(w.dtype()));
  expect_tensor(w, Shape{3, 2}, {0, 0, 0, 2, 1, 1}, 0);
  auto nz = a.nonzero();
  ASSERT_EQ(nz.size(), 2u);
  expect_tensor(nz[0], Shape{3}, {0, 0, 1}, 0);
  expect_tensor(nz[1], Shape{3}, {0, 2, 1}, 0);
  auto none = Tensor<2, Bool>::from_bool({{false, false}}, cpu);
  EXPECT_EQ(none.argwhere().shape(), (Shape{0, 2}));
  auto nz0 = none.nonzero();
  ASSERT_EQ(nz0.size(), 2u);
  EXPECT_EQ(nz0[0].shape(), (Shape{0}));
  // On a lazily computed mask.
  auto lazy = Tensor<1>::from_floats({3, -1, 0, 7}, cpu).greater_elem(0.0);
  expect_tensor(lazy.argwhere(), Shape{2, 1}, {0, 3}, 0);
}

// ---------------------------------------------------------------- dtypes

TEST(FloatDtypes, I64KeepsWideValues) {
  Device cpu = Device::cpu();
  int64_t big = int64_t{1} << 40;
  auto x = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{big, -3}), cpu);
  EXPECT_EQ(x.dtype(), DType::I64);
  auto y = (x + 1) * 2;
  EXPECT_EQ(y.dtype(), DType::I64);
  std::vector<int64_t> got = y.to_data().to_vec<int64_t>();
  EXPECT_EQ(got[0], (big + 1) * 2);
  EXPECT_EQ(got[1], -4);
  EXPECT_EQ(x.sum().to_data().to_vec<int64_t>()[0], big - 3);
  auto small = Tensor<1, Int>::from_ints({300, -1}, cpu).cast(DType::I64);
  EXPECT_EQ(small.dtype(), DType::I64);
  expect_tensor(small, Shape{2}, {300, -1}, 0);
  expect_tensor(x.cast(DType::I32).cast(DType::I64).lower_elem(0), Shape{2}, {0, 1}, 0);
}

TEST(FloatDtypes, U8) {
  Device cpu = Device::cpu();
  auto x = Tensor<1, Int>::from_data(TensorData(std::vector<uint8_t>{200, 7, 9}), cpu);
  EXPECT_EQ(x.dtype(), DType::U8);
  expect_tensor(x - 7, Shape{3}, {193, 0, 2}, 0);
  EXPECT_EQ((x - 7).dtype(), DType::U8);
  expect_tensor(x.greater_elem(100), Shape{3}, {1, 0, 0}, 0);
  expect_tensor(x.max(), Shape{1}, {200}, 0);
  expect_tensor(x.argmax(0), Shape{1}, {0}, 0);
  auto i = x.cast(DType::I32);
  EXPECT_EQ(i.dtype(), DType::I32);
  expect_tensor(i - 10, Shape{3}, {190, -3, -1}, 0);
  expect_tensor(Tensor<1, Int>::from_ints({255, 0, 17}, cpu).cast(DType::U8), Shape{3},
                {255, 0, 17}, 0);
}

TEST(FloatDtypes, F64Precision) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data(TensorData(std::vector<double>{1.0, 0.1}), cpu);
  EXPECT_EQ(x.dtype(), DType::F64);
  auto y = x + 1e-12;
  EXPECT_EQ(y.dtype(), DType::F64);
  std::vector<double> got = y.to_data().to_vec<double>();
  EXPECT_DOUBLE_EQ(got[0], 1.0 + 1e-12);
  EXPECT_DOUBLE_EQ(got[1], 0.1 + 1e-12);
  std::vector<double> e = x.exp().to_data().to_vec<double>();
  EXPECT_NEAR(e[1], std::exp(0.1), 1e-14);
  EXPECT_DOUBLE_EQ(x.sum().into_scalar(), 1.1);
}

TEST(FloatDtypes, HalfArithmetic) {
  Device cpu = Device::cpu();
  auto h = Tensor<1>::from_floats({1.5, 2.25, 2048}, cpu).cast(DType::F16);
  auto y = h * 2.0;
  EXPECT_EQ(y.dtype(), DType::F16);
  expect_tensor(y, Shape{3}, {3, 4.5, 4096}, 0);
  // 2048 + 1 is not representable in f16 (11-bit significand); it rounds to even: 2048.
  expect_tensor(h + 1.0, Shape{3}, {2.5, 3.25, 2048}, 0);
  auto b = Tensor<1>::from_floats({1.5, 256}, cpu).cast(DType::BF16);
  auto z = b + 1.0;
  EXPECT_EQ(z.dtype(), DType::BF16);
  // bf16 has an 8-bit significand: 257 rounds to 256.
  expect_tensor(z, Shape{2}, {2.5, 256}, 0);
  expect_tensor(b.exp(), Shape{2}, {std::exp(1.5), kInf}, 1e-2);
}

TEST(FloatDtypes, TensorDataConvert) {
  TensorData d(std::vector<float>{0.1f, -1.7f, 0.0f, 200.7f});
  EXPECT_EQ(d.dtype(), DType::F32);
  std::vector<double> h = d.convert(DType::F16).to_vec<double>();
  EXPECT_EQ(h[0], 0.0999755859375);
  EXPECT_EQ(h[1], -1.7001953125);
  EXPECT_EQ(d.convert(DType::BF16).to_vec<double>()[0], 0.10009765625);
  EXPECT_EQ(d.convert(DType::F64).to_vec<double>()[1], static_cast<double>(-1.7f));
  std::vector<int32_t> i = d.convert(DType::I32).to_vec<int32_t>();
  EXPECT_EQ(i, (std::vector<int32_t>{0, -1, 0, 200}));
  std::vector<bool> b = d.to_vec<bool>();
  EXPECT_EQ(b, (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(d.convert(DType::U8).to_vec<int64_t>()[3], 200);
  TensorData l(std::vector<int64_t>{-5, int64_t{1} << 50});
  EXPECT_EQ(l.convert(DType::F64).to_vec<double>()[1], std::ldexp(1.0, 50));
  EXPECT_EQ(l.as_slice<int64_t>()[0], -5);
  // Through a tensor: the data comes back in the tensor's dtype.
  auto t = Tensor<1>::from_data(d.convert(DType::F16), Device::cpu());
  EXPECT_EQ(t.dtype(), DType::F16);
  EXPECT_EQ(t.to_data().dtype(), DType::F16);
  EXPECT_TRUE(t.to_data() == d.convert(DType::F16));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// Integer overflow wraps (two's complement) on the CPU as on the GPUs, without C++ undefined
// behaviour (UBSan flagged the CPU's i64 arithmetic). Expected values from unsigned arithmetic.
TEST(IntWrap, OverflowWrapsOnTheCpu) {
  Device cpu = Device::cpu();
  auto wrap64 = [](uint64_t v) { return static_cast<int64_t>(v); };
  const int64_t max64 = INT64_MAX, min64 = INT64_MIN;
  auto big =
      Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{max64, min64, 3}, Shape{3}), cpu);
  auto one = Tensor<1, Int>::from_data(TensorData(std::vector<int64_t>{1, 1, 1}, Shape{3}), cpu);
  auto sum = (big + one).to_data().to_vec<int64_t>();
  EXPECT_EQ(sum[0], min64);
  EXPECT_EQ(sum[1], wrap64(uint64_t(min64) + 1));
  auto diff = (big - one - one).to_data().to_vec<int64_t>();
  EXPECT_EQ(diff[1], wrap64(uint64_t(min64) - 2));
  auto prod = (big * big).to_data().to_vec<int64_t>();
  EXPECT_EQ(prod[0], wrap64(uint64_t(max64) * uint64_t(max64)));
  auto neg = (-big).to_data().to_vec<int64_t>();
  EXPECT_EQ(neg[1], min64);  // -INT64_MIN wraps to itself
  EXPECT_EQ(big.abs().to_data().to_vec<int64_t>()[1], min64);
  auto i32 = Tensor<1, Int>::from_ints({INT32_MAX, INT32_MIN}, cpu);
  auto twice = (i32 * 2).to_data().to_vec<int32_t>();
  EXPECT_EQ(twice[0], static_cast<int32_t>(uint32_t(INT32_MAX) * 2u));
  EXPECT_EQ(twice[1], 0);
  EXPECT_EQ(i32.abs().to_data().to_vec<int32_t>()[1], INT32_MIN);
}

// Slice steps at the ends of int64: INT64_MIN (whose negation is undefined) is an error, a huge
// positive step takes one element.
TEST(IntWrap, ExtremeSliceSteps) {
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0}, Device::cpu());
  testing::expect_error([&] { x.slice({Range(0, 3, INT64_MIN)}); }, {"slice", "step"});
  testing::expect_tensor(x.slice({Range(0, 3, INT64_MAX)}), Shape{1}, {1});
}

}  // namespace
}  // namespace ember
