// module::lstm_recurrence against the LSTM equations written out here in double precision:
// the packed states, forward and reversed, and the gradients of a loss that reads every packed
// column against central differences of the same equations. On the CPU reference executor
// (runtime/cpu/lstm.cc) and the CPU target (the step-by-step composite, ir/lstm_compose.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "frontend/module.h"

namespace ember {
namespace {

struct Sizes {
  int64_t batch, steps, hidden;
};

std::vector<double> random_doubles(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(dist(gen));  // representable in f32
  return v;
}

// The packed states [B, T, 6H] (i, f, g, o, c, h per step), straight from the equations.
std::vector<double> lstm_equations(const Sizes& s, const std::vector<double>& xp,
                                   const std::vector<double>& w, const std::vector<double>& h0,
                                   const std::vector<double>& c0, bool reverse) {
  const int64_t B = s.batch, T = s.steps, H = s.hidden;
  std::vector<double> p(static_cast<size_t>(B * T * 6 * H));
  auto logistic = [](double x) { return 1 / (1 + std::exp(-x)); };
  for (int64_t b = 0; b < B; ++b) {
    std::vector<double> h(h0.begin() + b * H, h0.begin() + (b + 1) * H);
    std::vector<double> c(c0.begin() + b * H, c0.begin() + (b + 1) * H);
    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = reverse ? T - 1 - step : step;
      std::vector<double> a(static_cast<size_t>(4 * H));
      for (int64_t q = 0; q < 4 * H; ++q) {
        a[q] = xp[(b * T + t) * 4 * H + q];
        for (int64_t k = 0; k < H; ++k) a[q] += h[k] * w[k * 4 * H + q];
      }
      for (int64_t j = 0; j < H; ++j) {
        const double i = logistic(a[j]), f = logistic(a[H + j]), g = std::tanh(a[2 * H + j]),
                     o = logistic(a[3 * H + j]);
        c[j] = f * c[j] + i * g;
        h[j] = o * std::tanh(c[j]);
        const double packed[6] = {i, f, g, o, c[j], h[j]};
        for (int k = 0; k < 6; ++k) p[(b * T + t) * 6 * H + k * H + j] = packed[k];
      }
    }
  }
  return p;
}

TensorData as_data(const std::vector<double>& v, const Shape& s) {
  return TensorData(std::vector<float>(v.begin(), v.end()), s);
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, double tol,
                     const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

class LstmRecurrence : public ::testing::TestWithParam<bool> {};

TEST_P(LstmRecurrence, MatchesTheEquationsAndTheirCentralDifferences) {
  const bool reverse = GetParam();
  const Sizes s{2, 4, 3};
  const int64_t B = s.batch, T = s.steps, H = s.hidden;
  std::vector<double> xp = random_doubles(B * T * 4 * H, 1, -1.5, 1.5);
  std::vector<double> w = random_doubles(H * 4 * H, 2, -0.8, 0.8);
  std::vector<double> h0 = random_doubles(B * H, 3, -1, 1), c0 = random_doubles(B * H, 4, -1, 1);
  const std::vector<double> r = random_doubles(B * T * 6 * H, 5, -1, 1);
  auto loss = [&](const std::vector<double>& p) {
    double sum = 0;
    for (size_t i = 0; i < p.size(); ++i) sum += p[i] * r[i];
    return sum;
  };
  const std::vector<double> want = lstm_equations(s, xp, w, h0, c0, reverse);
  // d loss / d each operand by central differences of the equations.
  auto numeric = [&](std::vector<double>& operand) {
    std::vector<double> grad(operand.size());
    for (size_t i = 0; i < operand.size(); ++i) {
      const double keep = operand[i], eps = 1e-5;
      operand[i] = keep + eps;
      const double up = loss(lstm_equations(s, xp, w, h0, c0, reverse));
      operand[i] = keep - eps;
      const double down = loss(lstm_equations(s, xp, w, h0, c0, reverse));
      operand[i] = keep;
      grad[i] = (up - down) / (2 * eps);
    }
    return grad;
  };
  const std::vector<std::vector<double>> grads = {numeric(xp), numeric(w), numeric(h0),
                                                  numeric(c0)};
  for (Device dev : {Device::cpu_reference(), Device::cpu()}) {
    SCOPED_TRACE(dev.to_string());
    auto txp = Tensor<3>::from_data(as_data(xp, Shape{B, T, 4 * H}), dev).require_grad();
    auto tw = Tensor<2>::from_data(as_data(w, Shape{H, 4 * H}), dev).require_grad();
    auto th0 = Tensor<2>::from_data(as_data(h0, Shape{B, H}), dev).require_grad();
    auto tc0 = Tensor<2>::from_data(as_data(c0, Shape{B, H}), dev).require_grad();
    auto tr = Tensor<3>::from_data(as_data(r, Shape{B, T, 6 * H}), dev);
    Tensor<3> p = module::lstm_recurrence(txp, tw, th0, tc0, reverse);
    Gradients g = (p * tr).sum().backward();
    expect_near_all(p.to_data().to_vec<float>(), want, 1e-5, "packed states");
    expect_near_all(txp.grad(g).value().to_data().to_vec<float>(), grads[0], 1e-4, "d xp");
    expect_near_all(tw.grad(g).value().to_data().to_vec<float>(), grads[1], 1e-4, "d w");
    expect_near_all(th0.grad(g).value().to_data().to_vec<float>(), grads[2], 1e-4, "d h0");
    expect_near_all(tc0.grad(g).value().to_data().to_vec<float>(), grads[3], 1e-4, "d c0");
  }
}

INSTANTIATE_TEST_SUITE_P(Directions, LstmRecurrence, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Reversed" : "Forward"; });

TEST(LstmRecurrenceErrors, NameTheOpAndTheShapes) {
  auto xp = Tensor<3>::zeros(Shape{2, 3, 8});
  auto s = Tensor<2>::zeros(Shape{2, 2});
  try {
    module::lstm_recurrence(xp, Tensor<2>::zeros(Shape{2, 6}), s, s);
    FAIL() << "accepted a [2, 6] weight for 2 hidden units";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("lstm_recurrence"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 6]"), std::string::npos) << msg;
  }
  EXPECT_THROW(module::lstm_recurrence(xp.cast(DType::F16), Tensor<2>::zeros(Shape{2, 8}), s, s),
               Error);
  // The stream goes on after the errors.
  Tensor<3> p = module::lstm_recurrence(xp, Tensor<2>::zeros(Shape{2, 8}), s, s);
  EXPECT_EQ(p.shape(), Shape({2, 3, 12}));
  EXPECT_FLOAT_EQ(p.to_data().to_vec<float>()[0], 0.5f);
}

}  // namespace
}  // namespace ember
