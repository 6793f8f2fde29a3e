// Convolution modules: forward against plain loops (1-D, 2-D, 3-D, grouped, strided, dilated,
// padding Valid, Same with odd and even kernels, Explicit), transposed convolutions against a
// scatter loop, parameter counts, Burn's default initialisation bounds, display, config JSON,
// gradients in f64 and misuse.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

std::vector<double> values(size_t n, double phase = 0) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + phase) + 0.1;
  return v;
}

// A 3-D convolution by loops (2-D and 1-D as size-1 leading dims): x [n, c, d, h, w], weight
// [o, c / groups, kd, kh, kw], padding `lo` before and `hi` after each spatial dim.
struct Conv3Spec {
  int64_t n, c, o, groups;
  std::array<int64_t, 3> in, k, stride{1, 1, 1}, dil{1, 1, 1}, lo{0, 0, 0}, hi{0, 0, 0};
  std::array<int64_t, 3> out() const {
    std::array<int64_t, 3> r;
    for (int i = 0; i < 3; ++i)
      r[i] = (in[i] + lo[i] + hi[i] - dil[i] * (k[i] - 1) - 1) / stride[i] + 1;
    return r;
  }
};

std::vector<double> conv_ref(const Conv3Spec& s, const std::vector<double>& x,
                             const std::vector<double>& w, const std::vector<double>& b) {
  auto out = s.out();
  const int64_t cg = s.c / s.groups, og = s.o / s.groups;
  std::vector<double> y(s.n * s.o * out[0] * out[1] * out[2]);
  size_t yi = 0;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t z = 0; z < out[0]; ++z)
        for (int64_t r = 0; r < out[1]; ++r)
          for (int64_t q = 0; q < out[2]; ++q) {
            double acc = b.empty() ? 0 : b[o];
            int64_t g = o / og;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t a = 0; a < s.k[0]; ++a)
                for (int64_t bb = 0; bb < s.k[1]; ++bb)
                  for (int64_t cc = 0; cc < s.k[2]; ++cc) {
                    int64_t iz = z * s.stride[0] - s.lo[0] + a * s.dil[0];
                    int64_t ir = r * s.stride[1] - s.lo[1] + bb * s.dil[1];
                    int64_t iq = q * s.stride[2] - s.lo[2] + cc * s.dil[2];
                    if (iz < 0 || ir < 0 || iq < 0 || iz >= s.in[0] || ir >= s.in[1] ||
                        iq >= s.in[2])
                      continue;
                    int64_t c = g * cg + ci;
                    double xv = x[(((n * s.c + c) * s.in[0] + iz) * s.in[1] + ir) * s.in[2] + iq];
                    double wv = w[(((o * cg + ci) * s.k[0] + a) * s.k[1] + bb) * s.k[2] + cc];
                    acc += xv * wv;
                  }
            y[yi++] = acc;
          }
  return y;
}

std::vector<double> bias_of(const std::optional<Param<Tensor<1>>>& b) {
  return b ? host(b->val()) : std::vector<double>{};
}

TEST(Conv2d, ValidStridedDilatedGroupedMatchLoops) {
  Conv2d conv = Conv2dConfig({4, 6}, {3, 2})
                    .with_stride({2, 1})
                    .with_dilation({1, 2})
                    .with_groups(2)
                    .init(dev());
  Conv3Spec s{2, 4, 6, 2, {1, 7, 6}, {1, 3, 2}};
  s.stride = {1, 2, 1};
  s.dil = {1, 1, 2};
  auto x = values(2 * 4 * 7 * 6);
  auto want = conv_ref(s, x, host(conv.weight.val()), bias_of(conv.bias));
  auto y = conv.forward(from_host<4>(x, Shape{2, 4, 7, 6}));
  testing::expect_tensor(y, Shape{2, 6, 3, 4}, want, 1e-4);
  EXPECT_EQ(conv.channels_in(), 4);
  EXPECT_EQ(conv.channels_out(), 6);
}

TEST(Conv2d, PaddingSameKeepsTheSizeForOddAndEvenKernels) {
  auto x = values(1 * 2 * 5 * 6);
  for (auto k : std::vector<std::array<int64_t, 2>>{{3, 3}, {2, 2}, {4, 3}, {1, 2}}) {
    SCOPED_TRACE(std::to_string(k[0]) + "x" + std::to_string(k[1]));
    Conv2d conv = Conv2dConfig({2, 3}, k).with_padding(PaddingConfig2d::same()).init(dev());
    Conv3Spec s{1, 2, 3, 1, {1, 5, 6}, {1, k[0], k[1]}};
    // As PyTorch: total k - 1, the extra one after.
    s.lo = {0, (k[0] - 1) / 2, (k[1] - 1) / 2};
    s.hi = {0, k[0] - 1 - (k[0] - 1) / 2, k[1] - 1 - (k[1] - 1) / 2};
    auto want = conv_ref(s, x, host(conv.weight.val()), bias_of(conv.bias));
    testing::expect_tensor(conv.forward(from_host<4>(x, Shape{1, 2, 5, 6})), Shape{1, 3, 5, 6},
                           want, 1e-4);
  }
  // Same with dilation 2 and an even kernel: total 2 * (2 - 1) = 2, symmetric.
  Conv2d d = Conv2dConfig({2, 1}, {2, 2})
                 .with_dilation({2, 2})
                 .with_padding(PaddingConfig2d::same())
                 .init(dev());
  EXPECT_EQ(d.forward(from_host<4>(x, Shape{1, 2, 5, 6})).shape(), (Shape{1, 1, 5, 6}));
}

TEST(Conv2d, ExplicitPaddingWithoutBias) {
  Conv2d conv = Conv2dConfig({1, 2}, {3, 3})
                    .with_padding(PaddingConfig2d::explicit_({2, 1}))
                    .with_bias(false)
                    .init(dev());
  EXPECT_FALSE(conv.bias.has_value());
  Conv3Spec s{1, 1, 2, 1, {1, 4, 4}, {1, 3, 3}};
  s.lo = s.hi = {0, 2, 1};
  auto x = values(16, 1);
  testing::expect_tensor(conv.forward(from_host<4>(x, Shape{1, 1, 4, 4})), Shape{1, 2, 6, 4},
                         conv_ref(s, x, host(conv.weight.val()), {}), 1e-4);
}

TEST(Conv2d, UnbatchedInput) {
  Conv2d conv = Conv2dConfig({2, 3}, {2, 2}).init(dev());
  auto x = values(2 * 3 * 3);
  Conv3Spec s{1, 2, 3, 1, {1, 3, 3}, {1, 2, 2}};
  testing::expect_tensor(conv.forward(from_host<3>(x, Shape{2, 3, 3})), Shape{3, 2, 2},
                         conv_ref(s, x, host(conv.weight.val()), bias_of(conv.bias)), 1e-4);
}

TEST(Conv1d, MatchesLoops) {
  Conv1d conv = Conv1dConfig(2, 4, 3)
                    .with_stride(2)
                    .with_groups(2)
                    .with_padding(PaddingConfig1d::explicit_({1}))
                    .init(dev());
  Conv3Spec s{2, 2, 4, 2, {1, 1, 9}, {1, 1, 3}};
  s.stride = {1, 1, 2};
  s.lo = s.hi = {0, 0, 1};
  auto x = values(2 * 2 * 9);
  testing::expect_tensor(conv.forward(from_host<3>(x, Shape{2, 2, 9})), Shape{2, 4, 5},
                         conv_ref(s, x, host(conv.weight.val()), bias_of(conv.bias)), 1e-4);
  // Same with an even kernel in 1-D.
  Conv1d same = Conv1dConfig(2, 1, 4).with_padding(PaddingConfig1d::same()).init(dev());
  Conv3Spec ss{2, 2, 1, 1, {1, 1, 9}, {1, 1, 4}};
  ss.lo = {0, 0, 1};
  ss.hi = {0, 0, 2};
  testing::expect_tensor(same.forward(from_host<3>(x, Shape{2, 2, 9})), Shape{2, 1, 9},
                         conv_ref(ss, x, host(same.weight.val()), bias_of(same.bias)), 1e-4);
}

TEST(Conv3d, MatchesLoops) {
  Conv3d conv = Conv3dConfig({2, 3}, {2, 3, 2}).with_padding(PaddingConfig3d::same()).init(dev());
  Conv3Spec s{1, 2, 3, 1, {3, 4, 3}, {2, 3, 2}};
  s.lo = {0, 1, 0};
  s.hi = {1, 1, 1};
  auto x = values(2 * 3 * 4 * 3);
  testing::expect_tensor(conv.forward(from_host<5>(x, Shape{1, 2, 3, 4, 3})), Shape{1, 3, 3, 4, 3},
                         conv_ref(s, x, host(conv.weight.val()), bias_of(conv.bias)), 1e-4);
}

// A transposed 3-D convolution by scattering: weight [c, o / groups, kd, kh, kw].
std::vector<double> conv_transpose_ref(const Conv3Spec& s, const std::array<int64_t, 3>& pad,
                                       const std::array<int64_t, 3>& pad_out,
                                       std::array<int64_t, 3>& out, const std::vector<double>& x,
                                       const std::vector<double>& w, const std::vector<double>& b) {
  for (int i = 0; i < 3; ++i) {
    out[i] = (s.in[i] - 1) * s.stride[i] - 2 * pad[i] + s.dil[i] * (s.k[i] - 1) + pad_out[i] + 1;
  }
  const int64_t cg = s.c / s.groups, og = s.o / s.groups;
  const int64_t plane = out[0] * out[1] * out[2];
  std::vector<double> y(s.n * s.o * plane, 0.0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t p = 0; p < plane; ++p) y[(n * s.o + o) * plane + p] = b.empty() ? 0 : b[o];
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t z = 0; z < s.in[0]; ++z)
        for (int64_t r = 0; r < s.in[1]; ++r)
          for (int64_t q = 0; q < s.in[2]; ++q) {
            double xv = x[(((n * s.c + c) * s.in[0] + z) * s.in[1] + r) * s.in[2] + q];
            int64_t g = c / cg;
            for (int64_t oi = 0; oi < og; ++oi)
              for (int64_t a = 0; a < s.k[0]; ++a)
                for (int64_t bb = 0; bb < s.k[1]; ++bb)
                  for (int64_t cc = 0; cc < s.k[2]; ++cc) {
                    int64_t oz = z * s.stride[0] - pad[0] + a * s.dil[0];
                    int64_t orr = r * s.stride[1] - pad[1] + bb * s.dil[1];
                    int64_t oq = q * s.stride[2] - pad[2] + cc * s.dil[2];
                    if (oz < 0 || orr < 0 || oq < 0 || oz >= out[0] || orr >= out[1] ||
                        oq >= out[2])
                      continue;
                    int64_t o = g * og + oi;
                    double wv = w[(((c * og + oi) * s.k[0] + a) * s.k[1] + bb) * s.k[2] + cc];
                    y[(n * s.o + o) * plane + (oz * out[1] + orr) * out[2] + oq] += xv * wv;
                  }
          }
  return y;
}

TEST(ConvTranspose2d, MatchesScatterLoops) {
  ConvTranspose2d conv = ConvTranspose2dConfig({4, 2}, {3, 2})
                             .with_stride({2, 3})
                             .with_padding({1, 0})
                             .with_padding_out({1, 1})
                             .with_groups(2)
                             .init(dev());
  EXPECT_EQ(conv.weight.shape(), (Shape{4, 1, 3, 2}));
  Conv3Spec s{2, 4, 2, 2, {1, 3, 4}, {1, 3, 2}};
  s.stride = {1, 2, 3};
  std::array<int64_t, 3> out;
  auto x = values(2 * 4 * 3 * 4);
  auto want = conv_transpose_ref(s, {0, 1, 0}, {0, 1, 1}, out, x, host(conv.weight.val()),
                                 bias_of(conv.bias));
  testing::expect_tensor(conv.forward(from_host<4>(x, Shape{2, 4, 3, 4})),
                         Shape{2, 2, out[1], out[2]}, want, 1e-4);
}

TEST(ConvTranspose1dAnd3d, MatchScatterLoops) {
  ConvTranspose1d c1 = ConvTranspose1dConfig({2, 3}, 3).with_stride(2).with_dilation(2).init(dev());
  Conv3Spec s1{1, 2, 3, 1, {1, 1, 5}, {1, 1, 3}};
  s1.stride = {1, 1, 2};
  s1.dil = {1, 1, 2};
  std::array<int64_t, 3> out;
  auto x1 = values(10);
  auto want1 = conv_transpose_ref(s1, {0, 0, 0}, {0, 0, 0}, out, x1, host(c1.weight.val()),
                                  bias_of(c1.bias));
  testing::expect_tensor(c1.forward(from_host<3>(x1, Shape{1, 2, 5})), Shape{1, 3, out[2]}, want1,
                         1e-4);

  ConvTranspose3d c3 = ConvTranspose3dConfig({1, 2}, {2, 2, 2}).with_stride({2, 1, 2}).init(dev());
  Conv3Spec s3{1, 1, 2, 1, {2, 2, 3}, {2, 2, 2}};
  s3.stride = {2, 1, 2};
  auto x3 = values(12);
  auto want3 = conv_transpose_ref(s3, {0, 0, 0}, {0, 0, 0}, out, x3, host(c3.weight.val()),
                                  bias_of(c3.bias));
  testing::expect_tensor(c3.forward(from_host<5>(x3, Shape{1, 1, 2, 2, 3})),
                         Shape{1, 2, out[0], out[1], out[2]}, want3, 1e-4);
}

TEST(Conv, ParameterCountsAndShapes) {
  EXPECT_EQ(Conv2dConfig({3, 8}, {3, 3}).init(dev()).num_params(), 224);
  EXPECT_EQ(Conv2dConfig({3, 8}, {3, 3}).with_bias(false).init(dev()).num_params(), 216);
  EXPECT_EQ(Conv2dConfig({1, 8}, {3, 3}).init(dev()).num_params(), 80);
  EXPECT_EQ(Conv2dConfig({8, 16}, {3, 3}).init(dev()).num_params(), 1168);
  EXPECT_EQ(Conv2dConfig({4, 8}, {3, 3}).with_groups(4).init(dev()).num_params(), 8 * 9 + 8);
  EXPECT_EQ(Conv1dConfig(3, 5, 4).init(dev()).num_params(), 5 * 3 * 4 + 5);
  EXPECT_EQ(Conv3dConfig({2, 4}, {3, 3, 3}).init(dev()).num_params(), 4 * 2 * 27 + 4);
  ConvTranspose2d t = ConvTranspose2dConfig({6, 4}, {3, 3}).with_groups(2).init(dev());
  EXPECT_EQ(t.weight.shape(), (Shape{6, 2, 3, 3}));
  EXPECT_EQ(t.num_params(), 6 * 2 * 9 + 4);
  EXPECT_EQ(t.channels_out(), 4);
}

// Burn's default: uniform in +-1/sqrt(fan_in), fan_in = in / groups * prod(kernel), bias too.
void expect_uniform_bound(const std::vector<double>& w, double bound) {
  double lo = 1, hi = -1, sum2 = 0;
  for (double v : w) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum2 += v * v;
  }
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_LT(lo, -0.9 * bound);
  EXPECT_GT(hi, 0.9 * bound);
  EXPECT_NEAR(sum2 / static_cast<double>(w.size()), bound * bound / 3, 0.08 * bound * bound / 3);
}

TEST(Conv, DefaultInitialisationIsBurns) {
  Conv2d c = Conv2dConfig({8, 64}, {3, 3}).with_groups(2).init(dev());
  expect_uniform_bound(host(c.weight.val()), 1 / std::sqrt(4.0 * 9));
  for (double v : host(c.bias->val())) EXPECT_LE(std::abs(v), 1 / std::sqrt(36.0));
  // Transposed: fan_in from the weight's second dim (out / groups) times the kernel.
  ConvTranspose2d t = ConvTranspose2dConfig({64, 8}, {3, 3}).init(dev());
  expect_uniform_bound(host(t.weight.val()), 1 / std::sqrt(8.0 * 9));
  EXPECT_EQ(Conv2dConfig({1, 1}, {1, 1}).initializer,
            Initializer::kaiming_uniform(1 / std::sqrt(3.0), false));
  // A chosen initializer is used for weight and bias.
  Conv1d ones = Conv1dConfig(2, 2, 2).with_initializer(Initializer::ones()).init(dev());
  for (double v : host(ones.weight.val())) EXPECT_EQ(v, 1);
  for (double v : host(ones.bias->val())) EXPECT_EQ(v, 1);
}

TEST(Conv, DisplayFollowsBurn) {
  EXPECT_EQ(Conv2dConfig({1, 8}, {3, 3}).init(dev()).to_string(),
            "Conv2d {stride: [1, 1], kernel_size: [3, 3], dilation: [1, 1], groups: 1, padding: "
            "Valid, params: 80}");
  EXPECT_EQ(Conv1dConfig(2, 2, 3)
                .with_padding(PaddingConfig1d::explicit_({1}))
                .with_bias(false)
                .init(dev())
                .to_string(),
            "Conv1d {stride: [1], kernel_size: [3], dilation: [1], groups: 1, padding: "
            "Explicit(1), params: 12}");
  EXPECT_EQ(ConvTranspose2dConfig({2, 4}, {2, 2}).with_stride({2, 2}).init(dev()).to_string(),
            "ConvTranspose2d {channels: [2, 4], stride: [2, 2], kernel_size: [2, 2], dilation: "
            "[1, 1], groups: 1, padding: [0, 0], padding_out: [0, 0], params: 36}");
}

template <class C>
void expect_round_trip(const C& c) {
  SCOPED_TRACE(C::config_name());
  C back = C::from_json(nlohmann::json::parse(c.to_json().dump()));
  EXPECT_TRUE(back == c) << c.to_string() << "\nread back as\n" << back.to_string();
}

TEST(Conv, ConfigJsonRoundTrips) {
  auto c2 = Conv2dConfig({4, 8}, {3, 5})
                .with_stride({1, 2})
                .with_padding(PaddingConfig2d::explicit_({1, 2}))
                .with_groups(2)
                .with_bias(false)
                .with_initializer(Initializer::xavier_normal(2));
  expect_round_trip(c2);
  EXPECT_EQ(c2.to_json()["padding"], nlohmann::json::parse(R"({"Explicit": [1, 2]})"));
  EXPECT_EQ(Conv2dConfig({1, 1}, {1, 1}).to_json()["padding"], "Valid");
  expect_round_trip(Conv1dConfig(2, 3, 4).with_padding(PaddingConfig1d::same()));
  EXPECT_EQ(
      Conv1dConfig(2, 3, 4).with_padding(PaddingConfig1d::explicit_({3})).to_json()["padding"],
      nlohmann::json::parse(R"({"Explicit": 3})"));
  expect_round_trip(Conv1dConfig(2, 3, 4).with_padding(PaddingConfig1d::explicit_({3})));
  expect_round_trip(Conv3dConfig({2, 2}, {1, 2, 3}).with_padding(PaddingConfig3d::same()));
  expect_round_trip(ConvTranspose1dConfig({2, 3}, 4).with_padding_out(1).with_stride(2));
  expect_round_trip(ConvTranspose2dConfig({2, 3}, {4, 4}).with_padding({1, 2}));
  expect_round_trip(ConvTranspose3dConfig({2, 3}, {1, 2, 3}).with_dilation({1, 2, 1}));
  testing::expect_error(
      [] {
        auto j = Conv2dConfig({1, 1}, {1, 1}).to_json();
        j["padding"] = "Sometimes";
        Conv2dConfig::from_json(j);
      },
      {"PaddingConfig", "Sometimes"});
}

TEST(Conv2d, GradientsMatchCentralDifferences) {
  // Grouped, strided... and Same with an even kernel (the input padded first).
  Conv2d conv =
      Conv2dConfig({2, 4}, {2, 3}).with_groups(2).with_padding(PaddingConfig2d::same()).init(dev());
  auto x = from_host<4>(values(2 * 2 * 3 * 4), Shape{2, 2, 3, 4});
  testing::expect_grads<Conv2d, 4>(conv, x, [](const Conv2d& m, const Tensor<4>& in) {
    auto y = m.forward(in);
    return (y * y).sum();
  });
  Conv2d strided =
      Conv2dConfig({1, 2}, {3, 3}).with_stride({2, 2}).with_dilation({1, 2}).init(dev());
  auto x2 = from_host<4>(values(1 * 1 * 6 * 7, 0.3), Shape{1, 1, 6, 7});
  testing::expect_grads<Conv2d, 4>(strided, x2, [](const Conv2d& m, const Tensor<4>& in) {
    auto y = m.forward(in);
    return (y * y).sum();
  });
}

TEST(ConvTranspose2d, GradientsMatchCentralDifferences) {
  ConvTranspose2d conv = ConvTranspose2dConfig({2, 2}, {2, 2}).with_stride({2, 1}).init(dev());
  auto x = from_host<4>(values(1 * 2 * 2 * 3), Shape{1, 2, 2, 3});
  testing::expect_grads<ConvTranspose2d, 4>(conv, x,
                                            [](const ConvTranspose2d& m, const Tensor<4>& in) {
                                              auto y = m.forward(in);
                                              return (y * y).sum();
                                            });
}

// A small model of conv and pool modules: paths from the visitor, valid() keeps the layers'
// settings and ids, and gradients flow through conv -> max pool -> conv transpose.
struct ConvNet {
  Conv2d conv;
  MaxPool2d pool;
  ConvTranspose2d up;
  Tensor<4> forward(const Tensor<4>& x) const { return up.forward(pool.forward(conv.forward(x))); }
  EMBER_MODULE(ConvNet, conv, pool, up)
};

TEST(Conv, InAModelPathsValidAndGradients) {
  ConvNet net{Conv2dConfig({1, 2}, {3, 3}).with_padding(PaddingConfig2d::same()).init(dev()),
              MaxPool2dConfig({2, 2}).init(),
              ConvTranspose2dConfig({2, 1}, {2, 2}).with_stride({2, 2}).init(dev())};
  std::vector<std::string> paths;
  visit_params(net, [&](const std::string& path, const auto&) { paths.push_back(path); });
  EXPECT_EQ(paths, (std::vector<std::string>{"conv.weight", "conv.bias", "up.weight", "up.bias"}));
  EXPECT_EQ(net.num_params(), 2 * 9 + 2 + 2 * 4 + 1);
  ConvNet v = net.valid();
  EXPECT_EQ(v.conv.padding, PaddingConfig2d::same());
  EXPECT_EQ(v.up.stride, (std::array<int64_t, 2>{2, 2}));
  EXPECT_EQ(v.conv.weight.id(), net.conv.weight.id());
  auto x = from_host<4>(values(2 * 4 * 6, 0.2), Shape{2, 1, 4, 6});
  EXPECT_EQ(v.forward(x).shape(), (Shape{2, 1, 4, 6}));
  testing::expect_grads<ConvNet, 4>(net, x, [](const ConvNet& m, const Tensor<4>& in) {
    auto y = m.forward(in);
    return (y * y).sum();
  });
}

TEST(Conv, MisuseNamesTheLayer) {
  Conv2d conv = Conv2dConfig({3, 8}, {3, 3}).init(dev());
  testing::expect_error(
      [&] {
        conv.forward(Tensor<4>::ones(Shape{2, 4, 8, 8}, dev()));
      },
      {"Conv2d", "3 input channels", "f32[2, 4, 8, 8]"});
  testing::expect_error(
      [&] {
        conv.forward(Tensor<2>::ones(Shape{3, 8}, dev()));
      },
      {"Conv2d", "rank 4", "f32[3, 8]"});
  testing::expect_error(
      [] {
        Conv2dConfig({3, 8}, {3, 3}).with_groups(2).init(dev());
      },
      {"Conv2dConfig", "divisible by groups (2)", "[3, 8]"});
  testing::expect_error([] { Conv1dConfig(4, 6, 3).with_groups(4).init(dev()); },
                        {"Conv1dConfig", "groups"});
  testing::expect_error(
      [] {
        Conv2dConfig({3, 8}, {3, 3})
            .with_stride({2, 2})
            .with_padding(PaddingConfig2d::same())
            .init(dev());
      },
      {"Conv2dConfig", "Same", "stride"});
  testing::expect_error(
      [] {
        Conv2dConfig({3, 8}, {0, 3}).init(dev());
      },
      {"Conv2dConfig", "kernel_size"});
  testing::expect_error(
      [] {
        ConvTranspose2dConfig({3, 4}, {3, 3}).with_groups(2).init(dev());
      },
      {"ConvTranspose2dConfig", "groups"});
  testing::expect_error(
      [] {
        ConvTranspose1dConfig({2, 2}, 3).with_padding_out(1).init(dev());
      },
      {"ConvTranspose1dConfig", "padding_out"});
  ConvTranspose1d t = ConvTranspose1dConfig({2, 4}, 3).init(dev());
  testing::expect_error(
      [&] {
        t.forward(Tensor<3>::ones(Shape{1, 3, 5}, dev()));
      },
      {"ConvTranspose1d", "2 input channels", "f32[1, 3, 5]"});
}

}  // namespace
}  // namespace ember::nn
