// Initializers: statistics of large draws against Burn's fan rules (tolerances that fail when a
// bound or a fan is wrong), constants, orthogonality, misuse.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::host;

struct Moments {
  double mean = 0, var = 0, min = 1e300, max = -1e300;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) {
    m.mean += x / v.size();
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  for (double x : v) m.var += (x - m.mean) * (x - m.mean) / v.size();
  return m;
}

// 256 x 512 = 131072 draws: the sample variance is within 1% of the true one with a margin of
// several standard deviations, and a wrong fan (256 vs 512) is off by a factor of 2.
constexpr int64_t kIn = 256, kOut = 512;

Moments draw(const Initializer& init) {
  return moments(host(init.init<2>(Shape{kIn, kOut}, dev(), kIn, kOut)));
}

void expect_var(const Moments& m, double mean, double var) {
  EXPECT_NEAR(m.mean, mean, 5 * std::sqrt(var / (kIn * kOut)) + 1e-12);
  EXPECT_NEAR(m.var, var, 0.02 * var);
}

TEST(Initializer, Constants) {
  EXPECT_EQ(host(Initializer::constant(0.25).init<1>(Shape{4}, dev())),
            std::vector<double>(4, 0.25));
  EXPECT_EQ(host(Initializer::ones().init<1>(Shape{3}, dev())), std::vector<double>(3, 1));
  EXPECT_EQ(host(Initializer::zeros().init<1>(Shape{3}, dev())), std::vector<double>(3, 0));
}

TEST(Initializer, UniformAndNormal) {
  Moments u = draw(Initializer::uniform(-2, 6));
  expect_var(u, 2, 64.0 / 12);
  EXPECT_GE(u.min, -2);
  EXPECT_LT(u.max, 6);
  expect_var(draw(Initializer::normal(1.5, 0.5)), 1.5, 0.25);
}

TEST(Initializer, KaimingUsesFanInOrFanOut) {
  const double gain = std::sqrt(2.0);
  Moments ku = draw(Initializer::kaiming_uniform(gain, false));
  expect_var(ku, 0, gain * gain / kIn);
  EXPECT_LE(ku.max, std::sqrt(3.0) * gain / std::sqrt(kIn));
  expect_var(draw(Initializer::kaiming_uniform(gain, true)), 0, gain * gain / kOut);
  expect_var(draw(Initializer::kaiming_normal(gain, false)), 0, gain * gain / kIn);
  expect_var(draw(Initializer::kaiming_normal(gain, true)), 0, gain * gain / kOut);
}

TEST(Initializer, XavierUsesBothFans) {
  const double var = 2.0 / (kIn + kOut);
  Moments xu = draw(Initializer::xavier_uniform(1.0));
  expect_var(xu, 0, var);
  EXPECT_LE(xu.max, std::sqrt(3 * var));
  expect_var(draw(Initializer::xavier_normal(2.0)), 0, 4 * var);
}

// W W^T (or W^T W for tall matrices) is gain^2 times the identity.
void expect_orthogonal(int64_t rows, int64_t cols, double gain) {
  auto w = host(Initializer::orthogonal(gain).init<2>(Shape{rows, cols}, dev()));
  int64_t n = std::min(rows, cols);
  bool wide = rows <= cols;
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t b = 0; b < n; ++b) {
      double dot = 0;
      for (int64_t k = 0; k < (wide ? cols : rows); ++k) {
        dot += wide ? w[a * cols + k] * w[b * cols + k] : w[k * cols + a] * w[k * cols + b];
      }
      EXPECT_NEAR(dot, a == b ? gain * gain : 0, 1e-5) << a << ", " << b;
    }
  }
}

TEST(Initializer, OrthogonalRowsOrColumns) {
  expect_orthogonal(4, 9, 1.0);
  expect_orthogonal(9, 4, 2.0);
  expect_orthogonal(6, 6, 0.5);
  auto w = Initializer::orthogonal(1).init<3>(Shape{2, 3, 4}, dev());  // flattened to [2, 12]
  EXPECT_EQ(w.shape(), (Shape{2, 3, 4}));
}

TEST(Initializer, MisuseIsReported) {
  testing::expect_error([] { Initializer::kaiming_uniform(1, false).init<1>(Shape{3}, dev()); },
                        {"KaimingUniform", "fan_in"});
  testing::expect_error([] { Initializer::xavier_normal(1).init<1>(Shape{3}, dev(), 3); },
                        {"XavierNormal", "fan_out"});
  testing::expect_error([] { Initializer::orthogonal(1).init<1>(Shape{3}, dev()); },
                        {"Orthogonal", "rank 2"});
  testing::expect_error([] { Initializer::uniform(1, 0).init<1>(Shape{3}, dev()); },
                        {"Uniform", "min"});
}

TEST(Initializer, JsonRoundTrip) {
  for (const Initializer& i :
       {Initializer::constant(0.5), Initializer::ones(), Initializer::zeros(),
        Initializer::uniform(-1, 2), Initializer::normal(0, 0.02),
        Initializer::kaiming_uniform(0.5, true), Initializer::kaiming_normal(2, false),
        Initializer::xavier_uniform(1), Initializer::xavier_normal(3),
        Initializer::orthogonal(1.5)}) {
    EXPECT_EQ(Initializer::from_json(i.to_json()), i) << i.to_string();
  }
  EXPECT_EQ(Initializer::kaiming_uniform(0.5, true).to_json().dump(),
            R"({"KaimingUniform":{"fan_out_only":true,"gain":0.5}})");
  testing::expect_error([] { Initializer::from_json(nlohmann::json("Twos")); }, {"Twos"});
}

}  // namespace
}  // namespace ember::nn
