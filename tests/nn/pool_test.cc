// Pooling and resampling modules: forward against plain loops (max and average pooling with
// stride, padding, dilation, ceil_mode and count_include_pad; adaptive pooling; nearest and
// linear interpolation; unfold; pixel shuffle), display, config JSON, gradients in f64, misuse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

std::vector<double> values(size_t n, double phase = 0) {
  std::vector<double> v(n);
  // Distinct values (no ties for max pooling's gradient).
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(1.3 * static_cast<double>(i) + phase) + 0.001 * i;
  return v;
}

struct Pool2Spec {
  int64_t planes, h, w;
  std::array<int64_t, 2> k, stride, pad{0, 0}, dil{1, 1};
  bool ceil = false;
  int64_t out_size(int i) const {
    int64_t in = i == 0 ? h : w;
    int64_t span = in + 2 * pad[i] - dil[i] * (k[i] - 1) - 1;
    int64_t o = (ceil ? (span + stride[i] - 1) / stride[i] : span / stride[i]) + 1;
    // As PyTorch: the last window must start inside the input or its left padding.
    if (ceil && (o - 1) * stride[i] >= in + pad[i]) --o;
    return o;
  }
};

// Max (avg = false) or average pooling of every plane by loops.
std::vector<double> pool_ref(const Pool2Spec& s, const std::vector<double>& x, bool avg,
                             bool count_include_pad = true) {
  std::vector<double> y;
  const int64_t oh = s.out_size(0), ow = s.out_size(1);
  for (int64_t p = 0; p < s.planes; ++p)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q) {
        double best = -std::numeric_limits<double>::infinity(), sum = 0;
        int64_t count = 0;
        int64_t r0 = r * s.stride[0] - s.pad[0], q0 = q * s.stride[1] - s.pad[1];
        // PyTorch's divisor with padding counted: the window clipped to the padded input.
        int64_t rh = std::min(r0 + s.k[0], s.h + s.pad[0]),
                qh = std::min(q0 + s.k[1], s.w + s.pad[1]);
        int64_t padded_count = (rh - r0) * (qh - q0);
        for (int64_t a = 0; a < s.k[0]; ++a)
          for (int64_t b = 0; b < s.k[1]; ++b) {
            int64_t ir = r0 + a * s.dil[0], iq = q0 + b * s.dil[1];
            if (ir < 0 || iq < 0 || ir >= s.h || iq >= s.w) continue;
            double v = x[(p * s.h + ir) * s.w + iq];
            best = std::max(best, v);
            sum += v;
            ++count;
          }
        y.push_back(avg ? sum / static_cast<double>(count_include_pad ? padded_count : count)
                        : best);
      }
  return y;
}

TEST(MaxPool2d, MatchesLoops) {
  auto x = values(2 * 3 * 7 * 8);
  // The default stride is the kernel (Burn 0.21, PyTorch).
  MaxPool2d p = MaxPool2dConfig({2, 3}).init();
  EXPECT_EQ(p.stride, (std::array<int64_t, 2>{2, 3}));
  Pool2Spec s{6, 7, 8, {2, 3}, {2, 3}};
  testing::expect_tensor(p.forward(from_host<4>(x, Shape{2, 3, 7, 8})), Shape{2, 3, 3, 2},
                         pool_ref(s, x, false));
  MaxPool2d q = MaxPool2dConfig({3, 3})
                    .with_strides({2, 1})
                    .with_padding(PaddingConfig2d::explicit_({1, 1}))
                    .with_dilation({1, 2})
                    .with_ceil_mode(true)
                    .init();
  Pool2Spec t{6, 7, 8, {3, 3}, {2, 1}, {1, 1}, {1, 2}, true};
  testing::expect_tensor(q.forward(from_host<4>(x, Shape{2, 3, 7, 8})),
                         Shape{2, 3, t.out_size(0), t.out_size(1)}, pool_ref(t, x, false));
  // Same (stride 1, odd kernel) keeps the size.
  MaxPool2d same =
      MaxPool2dConfig({3, 5}).with_strides({1, 1}).with_padding(PaddingConfig2d::same()).init();
  Pool2Spec u{6, 7, 8, {3, 5}, {1, 1}, {1, 2}};
  testing::expect_tensor(same.forward(from_host<4>(x, Shape{2, 3, 7, 8})), Shape{2, 3, 7, 8},
                         pool_ref(u, x, false));
}

TEST(AvgPool2d, MatchesLoopsWithAndWithoutPaddingCounted) {
  auto x = values(1 * 2 * 5 * 6);
  for (bool include : {true, false}) {
    SCOPED_TRACE(include);
    AvgPool2d p = AvgPool2dConfig({3, 2})
                      .with_strides({2, 2})
                      .with_padding(PaddingConfig2d::explicit_({1, 1}))
                      .with_count_include_pad(include)
                      .init();
    Pool2Spec s{2, 5, 6, {3, 2}, {2, 2}, {1, 1}};
    testing::expect_tensor(p.forward(from_host<4>(x, Shape{1, 2, 5, 6})),
                           Shape{1, 2, s.out_size(0), s.out_size(1)},
                           pool_ref(s, x, true, include));
  }
  AvgPool2d c = AvgPool2dConfig({2, 2}).with_ceil_mode(true).init();
  Pool2Spec s{2, 5, 6, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true};
  testing::expect_tensor(c.forward(from_host<4>(x, Shape{1, 2, 5, 6})), Shape{1, 2, 3, 3},
                         pool_ref(s, x, true, true));
}

TEST(Pool1d, MatchLoops) {
  auto x = values(2 * 2 * 9);
  MaxPool1d m =
      MaxPool1dConfig(3).with_stride(2).with_padding(PaddingConfig1d::explicit_({1})).init();
  Pool2Spec s{4, 1, 9, {1, 3}, {1, 2}, {0, 1}};
  testing::expect_tensor(m.forward(from_host<3>(x, Shape{2, 2, 9})), Shape{2, 2, 5},
                         pool_ref(s, x, false));
  AvgPool1d a = AvgPool1dConfig(2).init();
  Pool2Spec t{4, 1, 9, {1, 2}, {1, 2}};
  testing::expect_tensor(a.forward(from_host<3>(x, Shape{2, 2, 9})), Shape{2, 2, 4},
                         pool_ref(t, x, true));
  // Unbatched.
  testing::expect_tensor(a.forward(from_host<2>(x, Shape{4, 9})), Shape{4, 4},
                         pool_ref(t, x, true));
}

// Adaptive average pooling: output i averages [floor(i in / out), ceil((i + 1) in / out)).
std::vector<double> adaptive_ref(const std::vector<double>& x, int64_t planes, int64_t h, int64_t w,
                                 int64_t oh, int64_t ow) {
  std::vector<double> y;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q) {
        int64_t r0 = r * h / oh, r1 = ((r + 1) * h + oh - 1) / oh;
        int64_t q0 = q * w / ow, q1 = ((q + 1) * w + ow - 1) / ow;
        double sum = 0;
        for (int64_t a = r0; a < r1; ++a)
          for (int64_t b = q0; b < q1; ++b) sum += x[(p * h + a) * w + b];
        y.push_back(sum / static_cast<double>((r1 - r0) * (q1 - q0)));
      }
  return y;
}

TEST(AdaptiveAvgPool, MatchesLoops) {
  auto x = values(2 * 3 * 10 * 7);
  AdaptiveAvgPool2d p = AdaptiveAvgPool2dConfig({4, 3}).init();
  testing::expect_tensor(p.forward(from_host<4>(x, Shape{2, 3, 10, 7})), Shape{2, 3, 4, 3},
                         adaptive_ref(x, 6, 10, 7, 4, 3));
  AdaptiveAvgPool1d q = AdaptiveAvgPool1dConfig(4).init();
  testing::expect_tensor(q.forward(from_host<3>(x, Shape{6, 7, 10})), Shape{6, 7, 4},
                         adaptive_ref(x, 42, 1, 10, 1, 4));
}

TEST(Interpolate, NearestAndLinearMatchLoops) {
  auto x = values(1 * 2 * 3 * 4);
  // Nearest: source index floor(dst * in / out).
  Interpolate2d up = Interpolate2dConfig().with_scale_factor(std::array<double, 2>{2, 1.5}).init();
  std::vector<double> want;
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t q = 0; q < 6; ++q) want.push_back(x[(p * 3 + r * 3 / 6) * 4 + q * 4 / 6]);
  testing::expect_tensor(up.forward(from_host<4>(x, Shape{1, 2, 3, 4})), Shape{1, 2, 6, 6}, want);
  // An output size wins over a scale factor.
  Interpolate2d sized = Interpolate2dConfig()
                            .with_output_size(std::array<int64_t, 2>{5, 2})
                            .with_scale_factor(std::array<double, 2>{3, 3})
                            .init();
  EXPECT_EQ(sized.forward(from_host<4>(x, Shape{1, 2, 3, 4})).shape(), (Shape{1, 2, 5, 2}));
  // Linear, half-pixel centres: src = (dst + 0.5) in / out - 0.5, clamped at 0.
  Interpolate1d lin =
      Interpolate1dConfig().with_output_size(7).with_mode(InterpolateMode::Linear).init();
  std::vector<double> want1;
  for (int64_t p = 0; p < 6; ++p)
    for (int64_t d = 0; d < 7; ++d) {
      double src = std::max(0.0, (d + 0.5) * 4.0 / 7.0 - 0.5);
      int64_t i0 = static_cast<int64_t>(std::floor(src)), i1 = std::min<int64_t>(i0 + 1, 3);
      double f = src - static_cast<double>(i0);
      want1.push_back(x[p * 4 + i0] * (1 - f) + x[p * 4 + i1] * f);
    }
  testing::expect_tensor(lin.forward(from_host<3>(x, Shape{2, 3, 4})), Shape{2, 3, 7}, want1);
}

TEST(Unfold4d, MatchesLoops) {
  auto x = values(2 * 2 * 4 * 5);
  Unfold4d u = Unfold4dConfig({2, 3}).with_stride({2, 1}).with_padding({1, 0}).init();
  const int64_t oh = (4 + 2 - 2) / 2 + 1, ow = (5 - 3) / 1 + 1;
  std::vector<double> want;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 3; ++b)
          for (int64_t r = 0; r < oh; ++r)
            for (int64_t q = 0; q < ow; ++q) {
              int64_t ir = r * 2 - 1 + a, iq = q + b;
              want.push_back(ir < 0 || ir >= 4 ? 0 : x[((n * 2 + c) * 4 + ir) * 5 + iq]);
            }
  testing::expect_tensor(u.forward(from_host<4>(x, Shape{2, 2, 4, 5})), Shape{2, 12, oh * ow},
                         want);
}

TEST(PixelShuffle, MatchesLoops) {
  auto x = values(1 * 8 * 2 * 3);
  PixelShuffle ps = PixelShuffleConfig(2).init();
  std::vector<double> want;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t q = 0; q < 6; ++q)
        want.push_back(x[((c * 4 + (r % 2) * 2 + q % 2) * 2 + r / 2) * 3 + q / 2]);
  testing::expect_tensor(ps.forward(from_host<4>(x, Shape{1, 8, 2, 3})), Shape{1, 2, 4, 6}, want);
}

TEST(Pool, DisplayAndParameterCounts) {
  EXPECT_EQ(AdaptiveAvgPool2dConfig({8, 8}).init().to_string(),
            "AdaptiveAvgPool2d {output_size: [8, 8]}");
  EXPECT_EQ(AdaptiveAvgPool1dConfig(4).init().to_string(), "AdaptiveAvgPool1d {output_size: 4}");
  EXPECT_EQ(MaxPool2dConfig({2, 2}).init().to_string(),
            "MaxPool2d {kernel_size: [2, 2], stride: [2, 2], padding: Valid, dilation: [1, 1], "
            "ceil_mode: false}");
  EXPECT_EQ(
      AvgPool1dConfig(3).with_stride(1).with_padding(PaddingConfig1d::same()).init().to_string(),
      "AvgPool1d {kernel_size: [3], stride: [1], padding: Same, count_include_pad: true, "
      "ceil_mode: false}");
  EXPECT_EQ(Interpolate2dConfig().with_output_size(std::array<int64_t, 2>{4, 4}).init().to_string(),
            "Interpolate2d {output_size: [4, 4], scale_factor: None, mode: Nearest}");
  EXPECT_EQ(PixelShuffleConfig(3).init().to_string(), "PixelShuffle {upscale_factor: 3}");
  EXPECT_EQ(MaxPool2dConfig({2, 2}).init().num_params(), 0);
  EXPECT_EQ(Unfold4dConfig({2, 2}).init().num_params(), 0);
}

template <class C>
void expect_round_trip(const C& c) {
  SCOPED_TRACE(C::config_name());
  C back = C::from_json(nlohmann::json::parse(c.to_json().dump()));
  EXPECT_TRUE(back == c) << c.to_string() << "\nread back as\n" << back.to_string();
}

TEST(Pool, ConfigJsonRoundTrips) {
  expect_round_trip(MaxPool1dConfig(3).with_stride(1).with_padding(PaddingConfig1d::same()));
  expect_round_trip(MaxPool2dConfig({3, 2}).with_dilation({2, 1}).with_ceil_mode(true));
  expect_round_trip(AvgPool1dConfig(2).with_count_include_pad(false));
  expect_round_trip(AvgPool2dConfig({2, 2})
                        .with_padding(PaddingConfig2d::explicit_({1, 0}))
                        .with_strides({1, 1}));
  expect_round_trip(AdaptiveAvgPool1dConfig(5));
  expect_round_trip(AdaptiveAvgPool2dConfig({8, 8}));
  auto i2 = Interpolate2dConfig()
                .with_scale_factor(std::array<double, 2>{1.5, 2})
                .with_mode(InterpolateMode::Cubic);
  expect_round_trip(i2);
  EXPECT_EQ(i2.to_json()["mode"], "Cubic");
  EXPECT_TRUE(i2.to_json()["output_size"].is_null());
  expect_round_trip(Interpolate1dConfig().with_output_size(3).with_mode(InterpolateMode::Linear));
  expect_round_trip(Unfold4dConfig({3, 3}).with_padding({1, 1}));
  expect_round_trip(PixelShuffleConfig(2));
  EXPECT_EQ(MaxPool2dConfig({3, 3}).to_json()["strides"], nlohmann::json::parse("[3, 3]"));
}

TEST(Pool, GradientsMatchCentralDifferences) {
  auto x = from_host<4>(values(1 * 2 * 5 * 4), Shape{1, 2, 5, 4});
  auto sq = [](const Tensor<4>& y) { return (y * y).sum(); };
  MaxPool2d m = MaxPool2dConfig({2, 2})
                    .with_strides({1, 2})
                    .with_padding(PaddingConfig2d::explicit_({1, 0}))
                    .init();
  testing::expect_grads<MaxPool2d, 4>(
      m, x, [&](const MaxPool2d& p, const Tensor<4>& in) { return sq(p.forward(in)); });
  AvgPool2d a = AvgPool2dConfig({3, 2})
                    .with_strides({1, 1})
                    .with_padding(PaddingConfig2d::explicit_({1, 1}))
                    .with_count_include_pad(false)
                    .init();
  testing::expect_grads<AvgPool2d, 4>(
      a, x, [&](const AvgPool2d& p, const Tensor<4>& in) { return sq(p.forward(in)); });
  AdaptiveAvgPool2d ad = AdaptiveAvgPool2dConfig({3, 3}).init();
  testing::expect_grads<AdaptiveAvgPool2d, 4>(
      ad, x, [&](const AdaptiveAvgPool2d& p, const Tensor<4>& in) { return sq(p.forward(in)); });
}

TEST(Pool, MisuseNamesTheLayer) {
  MaxPool2d m = MaxPool2dConfig({2, 2}).init();
  testing::expect_error(
      [&] {
        m.forward(Tensor<2>::ones(Shape{4, 4}, dev()));
      },
      {"MaxPool2d", "rank 4", "f32[4, 4]"});
  AdaptiveAvgPool1d a = AdaptiveAvgPool1dConfig(2).init();
  testing::expect_error(
      [&] {
        a.forward(Tensor<4>::ones(Shape{1, 1, 4, 4}, dev()));
      },
      {"AdaptiveAvgPool1d", "rank 3", "f32[1, 1, 4, 4]"});
  testing::expect_error(
      [] {
        MaxPool2dConfig({2, 2}).with_padding(PaddingConfig2d::same()).init();
      },
      {"MaxPool2dConfig", "Same", "stride"});
  testing::expect_error(
      [] { AvgPool1dConfig(2).with_stride(1).with_padding(PaddingConfig1d::same()).init(); },
      {"AvgPool1dConfig", "odd kernel_size"});
  testing::expect_error(
      [] {
        AdaptiveAvgPool2dConfig({0, 2}).init();
      },
      {"AdaptiveAvgPool2dConfig", "output_size"});
  testing::expect_error([] { Interpolate2dConfig().init(); },
                        {"Interpolate2dConfig", "output_size or scale_factor"});
  PixelShuffle ps = PixelShuffleConfig(2).init();
  testing::expect_error(
      [&] {
        ps.forward(Tensor<4>::ones(Shape{1, 6, 2, 2}, dev()));
      },
      {"PixelShuffle", "divisible", "f32[1, 6, 2, 2]"});
  testing::expect_error([] { PixelShuffleConfig(0).init(); }, {"PixelShuffleConfig"});
}

}  // namespace
}  // namespace ember::nn
