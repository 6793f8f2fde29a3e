// Activation modules, dropout, embedding and identity against closed forms on host values;
// gradients in f64; misuse.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "frontend/random_state.h"
#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;
using testing::from_host;
using testing::host;

const std::vector<double> kX = {-3.5, -1.25, -0.5, -0.01, 0.0, 0.02, 0.7, 1.5, 2.75, 4.0};

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

template <class M>
void expect_closed_form(const M& m, const std::function<double(double)>& f, double tol = 1e-5) {
  SCOPED_TRACE(M::module_name());
  std::vector<double> want;
  for (double x : kX) want.push_back(f(x));
  testing::expect_tensor(m.forward(from_host<2>(kX, Shape{2, 5})), Shape{2, 5}, want, tol);
}

TEST(Activations, ForwardMatchesClosedForms) {
  expect_closed_form(Relu(), [](double x) { return std::max(x, 0.0); });
  expect_closed_form(LeakyReluConfig().init(), [](double x) { return x > 0 ? x : 0.01 * x; });
  expect_closed_form(Gelu(), [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  expect_closed_form(Sigmoid(), sigmoid);
  expect_closed_form(Tanh(), [](double x) { return std::tanh(x); });
  expect_closed_form(HardSigmoidConfig().init(),
                     [](double x) { return std::clamp(0.2 * x + 0.5, 0.0, 1.0); });
  expect_closed_form(HardSwish(), [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; });
  expect_closed_form(EluConfig().with_alpha(0.7).init(),
                     [](double x) { return x > 0 ? x : 0.7 * (std::exp(x) - 1); });
  expect_closed_form(CeluConfig().with_alpha(2.0).init(), [](double x) {
    return std::max(0.0, x) + std::min(0.0, 2.0 * (std::exp(x / 2.0) - 1));
  });
  expect_closed_form(Selu(), [](double x) {
    return 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * (std::exp(x) - 1));
  });
  expect_closed_form(Silu(), [](double x) { return x * sigmoid(x); });
  expect_closed_form(Mish(), [](double x) { return x * std::tanh(std::log1p(std::exp(x))); });
  expect_closed_form(SoftplusConfig().with_beta(2.0).init(),
                     [](double x) { return std::log1p(std::exp(2 * x)) / 2; });
  expect_closed_form(Softsign(), [](double x) { return x / (1 + std::abs(x)); });
  expect_closed_form(Identity(), [](double x) { return x; });
}

TEST(Activations, GluHalvesTheLastDim) {
  Glu glu = GluConfig().init();
  auto y = glu.forward(from_host<2>(kX, Shape{2, 5 * 1}).reshape<2>(Shape{1, 10}));
  std::vector<double> want;
  for (int i = 0; i < 5; ++i) want.push_back(kX[i] * sigmoid(kX[i + 5]));
  testing::expect_tensor(y, Shape{1, 5}, want);
  testing::expect_error(
      [&] {
        glu.forward(from_host<2>(kX, Shape{2, 5}));
      },
      {"Glu", "even", "f32[2, 5]"});
}

TEST(Activations, PReluLearnsOneSlopePerChannel) {
  PRelu p = PReluConfig().with_num_parameters(2).with_alpha(0.1).init(dev());
  p = map_params(p, [](const std::string&, const auto& a) {
    return a.with_value(from_host<1>({0.1, 0.3}, Shape{2}));
  });
  auto y = p.forward(from_host<3>({-1, 2, -3, -4, 5, -6}, Shape{1, 2, 3}));
  testing::expect_tensor(y, Shape{1, 2, 3}, {-0.1, 2, -0.3, -1.2, 5, -1.8});
  EXPECT_EQ(PReluConfig().init(dev()).num_params(), 1);
  testing::expect_error(
      [&] {
        p.forward(Tensor<2>::ones(Shape{2, 3}, dev()));
      },
      {"PRelu", "2 channels"});
}

TEST(Activations, SwiGluIsSiluOfOneLinearTimesTheOther) {
  SwiGlu s = SwiGluConfig(3, 2).init(dev());
  EXPECT_FALSE(s.linear_inner.bias.has_value());
  auto x = from_host<2>({0.5, -1, 2, 1, 1, -0.5}, Shape{2, 3});
  auto a = host(s.linear_inner.forward(x)), b = host(s.linear_outer.forward(x));
  std::vector<double> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(a[i] * sigmoid(a[i]) * b[i]);
  testing::expect_tensor(s.forward(x), Shape{2, 2}, want);
}

template <Module M>
void check_grads(const M& m) {
  SCOPED_TRACE(M::module_name());
  // Away from the kinks at 0 (and HardSigmoid's at +-2.5), where differences are one-sided.
  std::vector<double> x = {-2.2, -0.9, -0.3, 0.4, 1.1, 2.1};
  testing::expect_grads<M, 2>(m, from_host<2>(x, Shape{2, 3}),
                              [](const M& mm, const Tensor<2>& in) {
                                auto y = mm.forward(in);
                                return (y * y).sum();
                              });
}

TEST(Activations, GradientsMatchCentralDifferences) {
  check_grads(Relu());
  check_grads(LeakyReluConfig(0.1).init());
  check_grads(Gelu());
  check_grads(Sigmoid());
  check_grads(Tanh());
  check_grads(HardSigmoidConfig().init());
  check_grads(HardSwish());
  check_grads(EluConfig().init());
  check_grads(CeluConfig().with_alpha(0.5).init());
  check_grads(Selu());
  check_grads(Silu());
  check_grads(Mish());
  check_grads(SoftplusConfig().init());
  check_grads(Softsign());
  check_grads(PReluConfig().init(dev()));
  check_grads(SwiGluConfig(3, 2).init(dev()));
}

TEST(Dropout, KeepsOneMinusProbAndRescalesInTrainingOnly) {
  Dropout d = DropoutConfig(0.3).init();
  seed(7);
  auto y = host(d.forward(Tensor<1>::ones(Shape{200000}, dev())));
  int64_t kept = 0;
  for (double v : y) {
    if (v != 0) {
      ++kept;
      EXPECT_NEAR(v, 1 / 0.7, 1e-6);
    }
  }
  // Binomial standard deviation ~ 0.001 of the rate: 0.005 is five of them.
  EXPECT_NEAR(static_cast<double>(kept) / y.size(), 0.7, 0.005);
  Dropout v = nn::valid(d);
  auto x = from_host<2>(kX, Shape{2, 5});
  EXPECT_EQ(host(v.forward(x)), host(x));
  testing::expect_error([] { DropoutConfig(1.0).init(); }, {"DropoutConfig", "prob"});
}

TEST(Embedding, LooksUpRowsAndGetsTheirGradients) {
  Embedding e = EmbeddingConfig(5, 3).init(dev());
  auto w = host(e.weight.val());
  auto idx = Tensor<2, Int>::from_ints({{4, 0}, {2, 4}}, dev());
  auto y = e.forward(idx);
  std::vector<double> want;
  for (int r : {4, 0, 2, 4})
    for (int c = 0; c < 3; ++c) want.push_back(w[r * 3 + c]);
  testing::expect_tensor(y, Shape{2, 2, 3}, want);
  Gradients g = y.sum().backward();
  // Row 4 is used twice, rows 1 and 3 never.
  testing::expect_tensor(e.weight.grad(g).value(), Shape{5, 3},
                         {1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, 2, 2});
}

}  // namespace
}  // namespace ember::nn
