// Convolution, pooling and resampling against plain loops written here from the definitions
// (PyTorch's torch.nn.functional semantics), on the default test device, over the parameter
// combinations: 1-d/2-d/3-d, stride, padding, dilation, groups (depthwise too), odd sizes, batch
// 1 and an empty batch; and the errors of bad configurations.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

std::vector<double> random_values(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

// Up to three spatial dims; missing ones have size 1.
struct Dims3 {
  std::array<int64_t, 3> v{1, 1, 1};
  int64_t numel() const { return v[0] * v[1] * v[2]; }
};

Dims3 spatial(const std::vector<int64_t>& shape) {
  Dims3 d;
  const size_t sr = shape.size() - 2;
  for (size_t i = 0; i < sr; ++i) d.v[3 - sr + i] = shape[i + 2];
  return d;
}

struct ConvCase {
  std::vector<int64_t> x, w;  // shapes
  std::vector<int64_t> stride, pad, dil;
  int64_t groups;
};

std::array<int64_t, 3> lead3(const std::vector<int64_t>& v, int64_t dflt) {
  std::array<int64_t, 3> a{dflt, dflt, dflt};
  for (size_t i = 0; i < v.size(); ++i) a[3 - v.size() + i] = v[i];
  return a;
}

// y[n, o, p] = sum_{c in group, k} x[n, c, p * s - pad + k * d] * w[o, c - group start, k].
std::vector<double> conv_reference(const ConvCase& c, const std::vector<double>& x,
                                   const std::vector<double>& w, std::vector<int64_t>& out_shape) {
  const Dims3 xs = spatial(c.x), ks = spatial(c.w);
  const auto s = lead3(c.stride, 1), p = lead3(c.pad, 0), dl = lead3(c.dil, 1);
  Dims3 os;
  out_shape = {c.x[0], c.w[0]};
  for (int i = 0; i < 3; ++i) {
    os.v[i] = (xs.v[i] + 2 * p[i] - dl[i] * (ks.v[i] - 1) - 1) / s[i] + 1;
  }
  for (size_t i = 2; i < c.x.size(); ++i) out_shape.push_back(os.v[3 - c.x.size() + i]);
  const int64_t N = c.x[0], C = c.x[1], O = c.w[0], cg = C / c.groups, og = O / c.groups;
  std::vector<double> y(static_cast<size_t>(N * O * os.numel()), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t a = 0; a < os.v[0]; ++a)
        for (int64_t b = 0; b < os.v[1]; ++b)
          for (int64_t e = 0; e < os.v[2]; ++e) {
            double acc = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t k0 = 0; k0 < ks.v[0]; ++k0)
                for (int64_t k1 = 0; k1 < ks.v[1]; ++k1)
                  for (int64_t k2 = 0; k2 < ks.v[2]; ++k2) {
                    const int64_t i0 = a * s[0] - p[0] + k0 * dl[0];
                    const int64_t i1 = b * s[1] - p[1] + k1 * dl[1];
                    const int64_t i2 = e * s[2] - p[2] + k2 * dl[2];
                    if (i0 < 0 || i0 >= xs.v[0] || i1 < 0 || i1 >= xs.v[1] || i2 < 0 ||
                        i2 >= xs.v[2])
                      continue;
                    const int64_t cin = (o / og) * cg + ci;
                    acc += x[(((n * C + cin) * xs.v[0] + i0) * xs.v[1] + i1) * xs.v[2] + i2] *
                           w[(((o * cg + ci) * ks.v[0] + k0) * ks.v[1] + k1) * ks.v[2] + k2];
                  }
            y[(((n * O + o) * os.v[0] + a) * os.v[1] + b) * os.v[2] + e] = acc;
          }
  return y;
}

template <int D>
Tensor<D> upload(const std::vector<double>& v, const std::vector<int64_t>& shape) {
  return Tensor<D>::from_data(TensorData(v, Shape(shape)).convert(DType::F32));
}

template <size_t N>
std::array<int64_t, N> arr(const std::vector<int64_t>& v, int64_t dflt) {
  std::array<int64_t, N> a;
  a.fill(dflt);
  for (size_t i = 0; i < v.size(); ++i) a[i] = v[i];
  return a;
}

template <int D>
void check_conv(const ConvCase& c, uint32_t seed) {
  constexpr size_t N = D - 2;
  auto count = [](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  };
  std::vector<double> x = random_values(count(c.x), seed), w = random_values(count(c.w), seed + 1);
  std::vector<int64_t> out_shape;
  std::vector<double> expected = conv_reference(c, x, w, out_shape);
  module::ConvOptions<N> o{arr<N>(c.stride, 1), arr<N>(c.pad, 0), arr<N>(c.dil, 1), c.groups};
  Tensor<D> y = module::conv<D>("conv", upload<D>(x, c.x), upload<D>(w, c.w), std::nullopt, o);
  expect_tensor(y, Shape(out_shape), expected, 1e-4);
}

TEST(ModuleConv, Conv1dMatchesLoops) {
  check_conv<3>({{2, 3, 9}, {4, 3, 3}, {1}, {0}, {1}, 1}, 1);
  check_conv<3>({{1, 4, 10}, {6, 2, 4}, {3}, {2}, {2}, 2}, 2);
  check_conv<3>({{2, 3, 7}, {3, 1, 5}, {2}, {2}, {1}, 3}, 3);  // depthwise
  // Outputs at least 8 wide with short reductions: the CPU's direct loop (strided, dilated).
  check_conv<3>({{2, 4, 40}, {6, 2, 3}, {2}, {1}, {3}, 2}, 4);
  check_conv<3>({{2, 3, 30}, {4, 3, 5}, {1}, {0}, {2}, 1}, 5);  // at the input's row pitch
  // Kernels wider than the output (weight gradients' shape): unfolded by rows on the CPU.
  check_conv<3>({{2, 3, 20}, {4, 3, 9}, {3}, {4}, {2}, 1}, 6);
}

TEST(ModuleConv, Conv2dMatchesLoops) {
  check_conv<4>({{2, 3, 7, 6}, {5, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1}, 10);
  check_conv<4>({{1, 4, 9, 8}, {4, 2, 3, 2}, {2, 3}, {1, 0}, {2, 1}, 2}, 11);
  check_conv<4>({{3, 6, 5, 5}, {6, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 6}, 12);  // depthwise
  check_conv<4>({{1, 2, 4, 4}, {3, 2, 4, 4}, {1, 1}, {0, 0}, {1, 1}, 1}, 13);  // kernel = input
  check_conv<4>({{2, 8, 5, 7}, {4, 4, 1, 1}, {1, 2}, {0, 0}, {1, 1}, 2}, 14);  // 1x1, groups
  // The CPU's direct loop: wide rows, padding on every side, dilation, strides.
  check_conv<4>({{2, 3, 6, 21}, {5, 3, 3, 3}, {1, 1}, {1, 2}, {1, 2}, 1}, 15);
  check_conv<4>({{1, 4, 9, 33}, {4, 1, 3, 5}, {2, 2}, {2, 1}, {1, 1}, 4}, 16);
  // Unpadded, unit-stride: rows computed at the input's pitch (dilated, grouped too).
  check_conv<4>({{2, 3, 7, 20}, {5, 3, 3, 3}, {1, 1}, {0, 0}, {1, 2}, 1}, 17);
  check_conv<4>({{3, 4, 10, 12}, {6, 2, 2, 4}, {1, 1}, {0, 0}, {3, 1}, 2}, 18);
  // Kernels wider than the output, padded, strided, dilated, grouped: unfolded by rows.
  check_conv<4>({{1, 2, 9, 11}, {3, 2, 5, 7}, {2, 1}, {2, 3}, {1, 2}, 1}, 19);
  check_conv<4>({{2, 4, 8, 9}, {4, 2, 6, 8}, {1, 2}, {1, 1}, {1, 1}, 2}, 24);
}

TEST(ModuleConv, Conv3dMatchesLoops) {
  check_conv<5>({{1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2}, 1}, 20);
  check_conv<5>({{2, 4, 3, 3, 3}, {4, 2, 3, 1, 2}, {2, 1, 1}, {1, 0, 1}, {1, 1, 1}, 2}, 21);
  check_conv<5>({{1, 2, 3, 4, 12}, {3, 2, 2, 3, 3}, {1, 1, 1}, {1, 1, 1}, {2, 1, 1}, 1}, 22);
  check_conv<5>({{2, 2, 5, 4, 12}, {3, 2, 2, 2, 3}, {2, 1, 1}, {1, 0, 0}, {1, 2, 1}, 1}, 23);
}

TEST(ModuleConv, EmptyBatchGivesEmptyOutput) {
  auto x = Tensor<4>::zeros({0, 3, 5, 5});
  auto w = Tensor<4>::ones({2, 3, 3, 3});
  Tensor<4> y = module::conv2d(x, w, std::nullopt, {{1, 1}, {1, 1}, {1, 1}, 1});
  EXPECT_EQ(y.shape(), Shape({0, 2, 5, 5}));
  EXPECT_EQ(y.to_data().shape(), Shape({0, 2, 5, 5}));
}

TEST(ModuleConv, BiasIsAddedPerChannel) {
  std::vector<double> x = random_values(2 * 2 * 4 * 4, 30), w = random_values(3 * 2 * 9, 31);
  ConvCase c{{2, 2, 4, 4}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1};
  std::vector<int64_t> os;
  std::vector<double> expected = conv_reference(c, x, w, os);
  const double bias[3] = {0.5, -1.0, 2.0};
  for (size_t i = 0; i < expected.size(); ++i) expected[i] += bias[(i / 16) % 3];
  auto b = Tensor<1>::from_data({0.5f, -1.0f, 2.0f});
  auto y = module::conv2d(upload<4>(x, c.x), upload<4>(w, c.w), b, {{1, 1}, {1, 1}, {1, 1}, 1});
  expect_tensor(y, Shape(os), expected, 1e-4);
}

// y[n, g * og + o, i * s - p + k * d] += x[n, g * cg + c, i] * w[g * cg + c, o, k] (the
// transposed convolution's definition: each input element spreads the kernel).
TEST(ModuleConv, ConvTranspose2dMatchesScatterDefinition) {
  struct Case {
    std::array<int64_t, 2> s, p, op, d;
    int64_t groups;
  };
  for (const Case& tc :
       {Case{{1, 1}, {0, 0}, {0, 0}, {1, 1}, 1}, Case{{2, 3}, {1, 0}, {1, 2}, {1, 1}, 1},
        Case{{2, 2}, {1, 1}, {0, 1}, {2, 1}, 2}}) {
    const int64_t N = 2, C = 4, H = 3, W = 4, og = 3, KH = 3, KW = 2, G = tc.groups;
    const int64_t cg = C / G, O = og * G;
    std::vector<double> x = random_values(N * C * H * W, 40),
                        w = random_values(C * og * KH * KW, 41);
    const int64_t OH = (H - 1) * tc.s[0] - 2 * tc.p[0] + tc.d[0] * (KH - 1) + tc.op[0] + 1;
    const int64_t OW = (W - 1) * tc.s[1] - 2 * tc.p[1] + tc.d[1] * (KW - 1) + tc.op[1] + 1;
    std::vector<double> y(static_cast<size_t>(N * O * OH * OW), 0.0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ci = 0; ci < C; ++ci)
        for (int64_t i = 0; i < H; ++i)
          for (int64_t j = 0; j < W; ++j)
            for (int64_t o = 0; o < og; ++o)
              for (int64_t a = 0; a < KH; ++a)
                for (int64_t b = 0; b < KW; ++b) {
                  const int64_t oi = i * tc.s[0] - tc.p[0] + a * tc.d[0];
                  const int64_t oj = j * tc.s[1] - tc.p[1] + b * tc.d[1];
                  if (oi < 0 || oi >= OH || oj < 0 || oj >= OW) continue;
                  const int64_t oc = (ci / cg) * og + o;
                  y[((n * O + oc) * OH + oi) * OW + oj] +=
                      x[((n * C + ci) * H + i) * W + j] * w[((ci * og + o) * KH + a) * KW + b];
                }
    auto out = module::conv_transpose2d(upload<4>(x, {N, C, H, W}), upload<4>(w, {C, og, KH, KW}),
                                        std::nullopt, {tc.s, tc.p, tc.op, tc.d, tc.groups});
    expect_tensor(out, Shape({N, O, OH, OW}), y, 1e-4);
  }
}

// Batches whose reduction is long enough to be summed in slices (4 samples of 48x48 output
// pixels: one slice each) and split into parts of output rows (ir/conv_compose.h's row_parts:
// two parts of 24 rows here, each reading its own input rows with the padding above or below
// it), grouped, strided and dilated: the weight gradient against plain loops.
TEST(ModuleConv, WeightGradientSummedOverBatchSlicesAndRowPartsMatchesLoops) {
  struct Case {
    int64_t H, W, stride, pad, dil;
  };
  // Output rows: 48 (pad 1 at both ends), 24 (stride 2, the last input row unread), 44 (dilation
  // 2, no padding), 24 (stride 2, pad 2: two rows of padding above, one below).
  for (Case c : {Case{48, 48, 1, 1, 1}, Case{50, 50, 2, 0, 1}, Case{48, 48, 1, 0, 2},
                 Case{46, 46, 2, 2, 1}}) {
    SCOPED_TRACE(::testing::Message() << "H " << c.H << " stride " << c.stride << " pad " << c.pad
                                      << " dilation " << c.dil);
    const int64_t N = 4, C = 4, O = 6, G = 2, H = c.H, W = c.W, cg = C / G, og = O / G;
    const int64_t OH = (H + 2 * c.pad - c.dil * 2 - 1) / c.stride + 1;
    const int64_t OW = (W + 2 * c.pad - c.dil * 2 - 1) / c.stride + 1;
    std::vector<double> x = random_values(N * C * H * W, 95), w = random_values(O * cg * 9, 96);
    std::vector<double> r = random_values(N * O * OH * OW, 97);
    auto wt = upload<4>(w, {O, cg, 3, 3}).require_grad();
    auto y = module::conv2d(upload<4>(x, {N, C, H, W}), wt, std::nullopt,
                            {{c.stride, c.stride}, {c.pad, c.pad}, {c.dil, c.dil}, G});
    Gradients grads = (y * upload<4>(r, {N, O, OH, OW})).sum().backward();
    std::vector<double> expected(static_cast<size_t>(O * cg * 9), 0.0);
    for (int64_t o = 0; o < O; ++o)
      for (int64_t ch = 0; ch < cg; ++ch)
        for (int64_t a = 0; a < 3; ++a)
          for (int64_t b = 0; b < 3; ++b) {
            double acc = 0;
            for (int64_t n = 0; n < N; ++n)
              for (int64_t i = 0; i < OH; ++i)
                for (int64_t j = 0; j < OW; ++j) {
                  const int64_t p = i * c.stride - c.pad + a * c.dil;
                  const int64_t q = j * c.stride - c.pad + b * c.dil;
                  if (p < 0 || p >= H || q < 0 || q >= W) continue;
                  acc += x[((n * C + (o / og) * cg + ch) * H + p) * W + q] *
                         r[((n * O + o) * OH + i) * OW + j];
                }
            expected[((o * cg + ch) * 3 + a) * 3 + b] = acc;
          }
    expect_tensor(wt.grad(grads).value(), Shape({O, cg, 3, 3}), expected, 1e-4);
  }
}

// Padding wider than the kernel's reach: the first of two parts of output rows would read only
// padding (input rows -3 and 1 of a one-row input, stride 4), so the weight gradient stays
// whole. 1x1 kernel: dW[o][c] = sum over n, i, j of x[n][c][4 i - 3][j] * r[n][o][i][j].
TEST(ModuleConv, WeightGradientWithARowPartInThePaddingMatchesLoops) {
  const int64_t N = 8, C = 4, O = 4, W = 128, OH = 2;
  std::vector<double> x = random_values(N * C * W, 98), w = random_values(O * C, 99);
  std::vector<double> r = random_values(N * O * OH * W, 100);
  auto wt = upload<4>(w, {O, C, 1, 1}).require_grad();
  auto y =
      module::conv2d(upload<4>(x, {N, C, 1, W}), wt, std::nullopt, {{4, 1}, {3, 0}, {1, 1}, 1});
  ASSERT_EQ(y.shape(), Shape({N, O, OH, W}));
  Gradients grads = (y * upload<4>(r, {N, O, OH, W})).sum().backward();
  std::vector<double> expected(static_cast<size_t>(O * C), 0.0);
  for (int64_t o = 0; o < O; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t i = 0; i < OH; ++i) {
          if (4 * i - 3 != 0) continue;  // the only input row is row 0
          for (int64_t j = 0; j < W; ++j)
            expected[o * C + c] += x[(n * C + c) * W + j] * r[((n * O + o) * OH + i) * W + j];
        }
  expect_tensor(wt.grad(grads).value(), Shape({O, C, 1, 1}), expected, 1e-4);
}

TEST(ModuleConv, BadConfigurationsNameTheOpAndShapes) {
  auto x = Tensor<4>::zeros({1, 3, 5, 5});
  expect_error(
      [&] {
        module::conv2d(x, Tensor<4>::zeros({4, 3, 3, 3}), std::nullopt,
                       {{1, 1}, {0, 0}, {1, 1}, 2});
      },
      {"conv2d", "divisible by groups", "f32[1, 3, 5, 5]"});
  expect_error(
      [&] {
        module::conv2d(x, Tensor<4>::zeros({2, 3, 7, 3}));
      },
      {"conv2d", "larger than the padded input", "f32[2, 3, 7, 3]"});
  expect_error(
      [&] {
        module::conv2d(x, Tensor<4>::zeros({2, 2, 3, 3}));
      },
      {"conv2d", "input channels", "f32[1, 3, 5, 5]"});
  expect_error(
      [&] {
        module::conv2d(x, Tensor<4>::zeros({2, 3, 3, 3}), Tensor<1>::zeros({3}));
      },
      {"conv2d", "bias"});
  expect_error(
      [&] {
        module::max_pool2d(x, {2, 2}, {std::nullopt, {2, 2}});
      },
      {"max_pool2d", "padding"});
  expect_error([&] { module::pixel_shuffle(x, 2); }, {"pixel_shuffle", "divisible"});
  // The stream stays usable.
  auto y = module::conv2d(x, Tensor<4>::ones({2, 3, 3, 3}));
  EXPECT_EQ(y.to_data().shape(), Shape({1, 2, 3, 3}));
}

// ---- pooling

struct Pool2d {
  std::array<int64_t, 2> k, s, p, d;
  bool ceil;
};

std::array<int64_t, 2> pool_out(const Pool2d& c, int64_t H, int64_t W) {
  std::array<int64_t, 2> out{};
  const int64_t size[2] = {H, W};
  for (int i = 0; i < 2; ++i) {
    const int64_t span = size[i] + 2 * c.p[i] - c.d[i] * (c.k[i] - 1) - 1;
    out[i] = (c.ceil ? (span + c.s[i] - 1) / c.s[i] : span / c.s[i]) + 1;
    if (c.ceil && (out[i] - 1) * c.s[i] >= size[i] + c.p[i]) --out[i];
  }
  return out;
}

TEST(ModulePool, MaxPool2dWithIndicesMatchesLoops) {
  for (const Pool2d& c : {Pool2d{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
                          Pool2d{{3, 3}, {2, 1}, {1, 1}, {1, 1}, false},
                          Pool2d{{3, 2}, {2, 2}, {1, 0}, {1, 2}, true}}) {
    const int64_t N = 2, C = 3, H = 7, W = 6;
    std::vector<double> x = random_values(N * C * H * W, 50);
    const auto os = pool_out(c, H, W);
    std::vector<double> vals, idx;
    for (int64_t nc = 0; nc < N * C; ++nc)
      for (int64_t a = 0; a < os[0]; ++a)
        for (int64_t b = 0; b < os[1]; ++b) {
          double best = -std::numeric_limits<double>::infinity();
          int64_t at = -1;
          for (int64_t i = 0; i < c.k[0]; ++i)
            for (int64_t j = 0; j < c.k[1]; ++j) {
              const int64_t r = a * c.s[0] - c.p[0] + i * c.d[0];
              const int64_t q = b * c.s[1] - c.p[1] + j * c.d[1];
              if (r < 0 || r >= H || q < 0 || q >= W) continue;
              const double v = x[(nc * H + r) * W + q];
              if (v > best) best = v, at = r * W + q;
            }
          vals.push_back(best);
          idx.push_back(static_cast<double>(at));
        }
    auto [y, i] = module::max_pool2d_with_indices(upload<4>(x, {N, C, H, W}), c.k,
                                                  {c.s, c.p, c.d, c.ceil, true});
    expect_tensor(y, Shape({N, C, os[0], os[1]}), vals, 1e-6);
    expect_tensor(i, Shape({N, C, os[0], os[1]}), idx, 0);
  }
}

TEST(ModulePool, AvgPool2dMatchesLoops) {
  for (bool include_pad : {true, false}) {
    for (const Pool2d& c : {Pool2d{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
                            Pool2d{{3, 3}, {2, 2}, {1, 1}, {1, 1}, true},
                            Pool2d{{3, 2}, {1, 2}, {1, 1}, {1, 1}, false}}) {
      const int64_t N = 1, C = 2, H = 6, W = 7;
      std::vector<double> x = random_values(N * C * H * W, 60);
      const auto os = pool_out(c, H, W);
      std::vector<double> expected;
      for (int64_t nc = 0; nc < N * C; ++nc)
        for (int64_t a = 0; a < os[0]; ++a)
          for (int64_t b = 0; b < os[1]; ++b) {
            // PyTorch: the window clipped to the padded input counts when padding is included,
            // the window clipped to the input otherwise.
            const int64_t h0 = a * c.s[0] - c.p[0], w0 = b * c.s[1] - c.p[1];
            const int64_t h1 = std::min(h0 + c.k[0], H + c.p[0]);
            const int64_t w1 = std::min(w0 + c.k[1], W + c.p[1]);
            double sum = 0;
            int64_t inside = 0;
            for (int64_t r = std::max<int64_t>(h0, 0); r < std::min(h1, H); ++r)
              for (int64_t q = std::max<int64_t>(w0, 0); q < std::min(w1, W); ++q) {
                sum += x[(nc * H + r) * W + q];
                ++inside;
              }
            const int64_t count = include_pad ? (h1 - h0) * (w1 - w0) : inside;
            expected.push_back(sum / static_cast<double>(count));
          }
      auto y = module::avg_pool2d(upload<4>(x, {N, C, H, W}), c.k,
                                  {c.s, c.p, {1, 1}, c.ceil, include_pad});
      expect_tensor(y, Shape({N, C, os[0], os[1]}), expected, 1e-5);
    }
  }
}

TEST(ModulePool, AdaptivePoolsMatchLoops) {
  const int64_t H = 7, W = 5, OH = 3, OW = 4;
  std::vector<double> x = random_values(2 * H * W, 70);
  std::vector<double> avg, mx;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t a = 0; a < OH; ++a)
      for (int64_t b = 0; b < OW; ++b) {
        const int64_t h0 = a * H / OH, h1 = ((a + 1) * H + OH - 1) / OH;
        const int64_t w0 = b * W / OW, w1 = ((b + 1) * W + OW - 1) / OW;
        double sum = 0, best = -1e300;
        for (int64_t r = h0; r < h1; ++r)
          for (int64_t q = w0; q < w1; ++q) {
            sum += x[(c * H + r) * W + q];
            best = std::max(best, x[(c * H + r) * W + q]);
          }
        avg.push_back(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        mx.push_back(best);
      }
  auto t = upload<4>(x, {1, 2, H, W});
  expect_tensor(module::adaptive_avg_pool2d(t, {OH, OW}), Shape({1, 2, OH, OW}), avg, 1e-5);
  expect_tensor(module::adaptive_max_pool2d(t, {OH, OW}), Shape({1, 2, OH, OW}), mx, 1e-6);
  std::vector<double> avg1;
  for (int64_t r = 0; r < 2 * H; ++r) {  // [1, 2 * 7, 5] -> [1, 14, 2]
    for (int64_t b = 0; b < 2; ++b) {
      const int64_t w0 = b * W / 2, w1 = ((b + 1) * W + 1) / 2;
      double sum = 0;
      for (int64_t q = w0; q < w1; ++q) sum += x[r * W + q];
      avg1.push_back(sum / static_cast<double>(w1 - w0));
    }
  }
  expect_tensor(module::adaptive_avg_pool1d(upload<3>(x, {1, 2 * H, W}), 2), Shape({1, 2 * H, 2}),
                avg1, 1e-5);
}

// ---- resampling

// PyTorch's upsample kernels, one output pixel at a time.
double bilinear_at(const std::vector<double>& x, int64_t H, int64_t W, int64_t OH, int64_t OW,
                   int64_t a, int64_t b, bool align) {
  auto src = [&](int64_t o, int64_t in, int64_t out) {
    if (align) return out > 1 ? static_cast<double>(o) * (in - 1) / (out - 1) : 0.0;
    return std::max((o + 0.5) * in / out - 0.5, 0.0);
  };
  const double sh = src(a, H, OH), sw = src(b, W, OW);
  const int64_t h0 = static_cast<int64_t>(sh), w0 = static_cast<int64_t>(sw);
  const int64_t h1 = std::min(h0 + 1, H - 1), w1 = std::min(w0 + 1, W - 1);
  const double lh = sh - h0, lw = sw - w0;
  return (1 - lh) * ((1 - lw) * x[h0 * W + w0] + lw * x[h0 * W + w1]) +
         lh * ((1 - lw) * x[h1 * W + w0] + lw * x[h1 * W + w1]);
}

TEST(ModuleResample, InterpolateMatchesLoops) {
  const int64_t H = 4, W = 5;
  std::vector<double> x = random_values(H * W, 80);
  auto t = upload<4>(x, {1, 1, H, W});
  for (bool align : {false, true}) {
    for (auto [OH, OW] : {std::pair<int64_t, int64_t>{7, 3}, {4, 9}, {1, 2}}) {
      std::vector<double> expected;
      for (int64_t a = 0; a < OH; ++a)
        for (int64_t b = 0; b < OW; ++b)
          expected.push_back(bilinear_at(x, H, W, OH, OW, a, b, align));
      expect_tensor(module::interpolate(t, {OH, OW}, {module::InterpolateMode::Bilinear, align}),
                    Shape({1, 1, OH, OW}), expected, 1e-5);
    }
  }
  std::vector<double> nearest;
  for (int64_t a = 0; a < 6; ++a)
    for (int64_t b = 0; b < 3; ++b) nearest.push_back(x[(a * H / 6) * W + (b * W / 3)]);
  expect_tensor(module::interpolate(t, {6, 3}), Shape({1, 1, 6, 3}), nearest, 1e-6);
  // Bicubic reproduces a linear ramp exactly away from the borders (Keys' kernel is exact on
  // linear functions), and an upsampled constant stays constant.
  std::vector<double> ramp;
  for (int64_t i = 0; i < 8; ++i) ramp.push_back(0.5 * static_cast<double>(i));
  auto r = module::interpolate1d(upload<3>(ramp, {1, 1, 8}), 15,
                                 {module::InterpolateMode::Bicubic, true});
  std::vector<double> got = r.to_data().to_vec<double>();
  for (int64_t o = 2; o < 13; ++o) EXPECT_NEAR(got[o], 0.5 * o * 7.0 / 14.0, 1e-5) << o;
  auto flat = module::interpolate(Tensor<4>::full({1, 1, 3, 3}, 2.5), {5, 7},
                                  {module::InterpolateMode::Bicubic, false});
  expect_tensor(flat, Shape({1, 1, 5, 7}), std::vector<double>(35, 2.5), 1e-5);
}

TEST(ModuleResample, Unfold4dAndPixelShuffleMatchLoops) {
  const int64_t C = 2, H = 4, W = 5, KH = 2, KW = 3;
  std::vector<double> x = random_values(C * H * W, 90);
  const int64_t OH = (H + 2 - (KH - 1) - 1) / 2 + 1, OW = (W + 0 - 2 * (KW - 1) - 1) / 1 + 1;
  std::vector<double> expected;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t i = 0; i < KH; ++i)
      for (int64_t j = 0; j < KW; ++j)
        for (int64_t a = 0; a < OH; ++a)
          for (int64_t b = 0; b < OW; ++b) {
            const int64_t r = a * 2 - 1 + i, q = b + 2 * j;
            expected.push_back(r < 0 || r >= H ? 0.0 : x[(c * H + r) * W + q]);
          }
  auto u = module::unfold4d(upload<4>(x, {1, C, H, W}), {KH, KW}, {{2, 1}, {1, 0}, {1, 2}});
  expect_tensor(u, Shape({1, C * KH * KW, OH * OW}), expected, 1e-6);

  std::vector<double> y = random_values(8 * 2 * 3, 91), shuffled(8 * 2 * 3);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 6; ++w)
        shuffled[(c * 4 + h) * 6 + w] =
            y[((c * 4 + (h % 2) * 2 + (w % 2)) * 2 + h / 2) * 3 + w / 2];
  expect_tensor(module::pixel_shuffle(upload<4>(y, {1, 8, 2, 3}), 2), Shape({1, 2, 4, 6}), shuffled,
                1e-6);
}

}  // namespace
}  // namespace ember
