// In-place buffer reuse inside fused kernels: a pointwise kernel may write an output over the
// buffer of an intermediate that dies in it, which is only sound if every load of that
// intermediate happens before the store. These programs run forward and backward in one flush
// with the loss still held (what a training loop that prints its loss does), the situation in
// which multi-output pointwise kernels get such donations. Expected values are closed forms
// computed in the test, on every device (the CPU included).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

std::vector<Device> devices() {
  std::vector<Device> out = {Device::cpu_reference()};
  if (testing::have_gpu_device() || std::getenv("EMBER_REQUIRE_VULKAN"))
    out.push_back(testing::gpu_device());
  return out;
}

// A softmax-family op over a dim of size 1 is constant (1, or 0 for log_softmax), so the gradient
// of sum(op(x) * u) is exactly 0 whatever u is.
template <class Op>
void expect_zero_gradient_over_unit_dim(const Device& dev, Op op) {
  testing::OneFlushGuard one_flush;
  auto x = Tensor<3>::from_data(testing::host_uniform({1, 4, 1}, 11), dev).require_grad();
  auto u = Tensor<3>::from_data(testing::host_uniform({1, 4, 1}, 12), dev);
  Tensor<1> loss = (op(x) * u).sum();
  Gradients grads = loss.backward();
  auto gx = x.grad(grads).value();
  testing::expect_tensor(gx, Shape{1, 4, 1}, std::vector<double>(4, 0.0), 1e-6);
  // The loss itself: sum(u) for softmax/softmin, 0 for log_softmax.
  EXPECT_TRUE(std::isfinite(loss.into_scalar<float>()));
}

TEST(InPlaceReuse, SoftmaxFamilyGradientOverUnitDimIsZero) {
  for (const Device& dev : devices()) {
    SCOPED_TRACE(dev.to_string());
    for (bool fused : {true, false}) {
      SCOPED_TRACE(fused ? "fused" : "unfused");
      FusionGuard guard(fused);
      expect_zero_gradient_over_unit_dim(dev, [](auto& x) { return activation::softmax(x, 2); });
      expect_zero_gradient_over_unit_dim(dev, [](auto& x) { return activation::softmin(x, 2); });
      expect_zero_gradient_over_unit_dim(dev,
                                         [](auto& x) { return activation::log_softmax(x, 2); });
      expect_zero_gradient_over_unit_dim(dev, [](auto& x) { return activation::softmax(x, 0); });
    }
  }
}

// gelu(x) = x * Phi(x) and its derivative Phi(x) + x * phi(x).
double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_grad(double x) {
  return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
         x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
}

// y = x1 / gelu(x1)^2 and z = sum_dim(x0, 0) + x1 share x1 in one backward, so the gradient of x1
// is accumulated from two branches in a multi-output kernel: d/dx1 = u0 * f'(x1) + u1 with
// f'(x) = 1 / g^2 - 2 x g' / g^3.
TEST(InPlaceReuse, TwoBranchGradientMatchesClosedForm) {
  const Shape s{3, 3};
  TensorData x0d = testing::host_uniform(s, 21), x1d = testing::host_uniform(s, 22, 0.5, 2.0);
  TensorData u0d = testing::host_uniform(s, 23), u1d = testing::host_uniform(s, 24);
  std::vector<double> x1 = x1d.to_vec<double>(), u0 = u0d.to_vec<double>(),
                      u1 = u1d.to_vec<double>(), x0 = x0d.to_vec<double>();
  std::vector<double> expected_g1(9), expected_g0(9);
  double expected_loss = 0;
  for (int i = 0; i < 9; ++i) {
    double g = gelu(x1[i]), dg = gelu_grad(x1[i]);
    expected_g1[i] = u0[i] * (1 / (g * g) - 2 * x1[i] * dg / (g * g * g)) + u1[i];
    double col = x0[i % 3] + x0[3 + i % 3] + x0[6 + i % 3];
    expected_loss += x1[i] / (g * g) * u0[i] + (col + x1[i]) * u1[i];
  }
  // d/dx0[r][c] = sum over rows i of u1[i][c].
  for (int i = 0; i < 9; ++i) expected_g0[i] = u1[i % 3] + u1[3 + i % 3] + u1[6 + i % 3];
  for (const Device& dev : devices()) {
    SCOPED_TRACE(dev.to_string());
    for (bool fused : {true, false}) {
      SCOPED_TRACE(fused ? "fused" : "unfused");
      FusionGuard guard(fused);
      auto t0 = Tensor<2>::from_data(x0d, dev).require_grad();
      auto t1 = Tensor<2>::from_data(x1d, dev).require_grad();
      auto w0 = Tensor<2>::from_data(u0d, dev), w1 = Tensor<2>::from_data(u1d, dev);
      auto g = activation::gelu(t1);
      auto y = t1 / (g * g);
      auto z = t0.sum_dim(0) + t1;
      auto loss = (y * w0).sum() + (z * w1).sum();
      testing::OneFlushGuard one_flush;
      Gradients grads = loss.backward();
      testing::expect_tensor(t1.grad(grads).value(), s, expected_g1, 1e-4);
      testing::expect_tensor(t0.grad(grads).value(), s, expected_g0, 1e-5);
      EXPECT_NEAR(loss.into_scalar<float>(), expected_loss, 1e-4 * std::abs(expected_loss) + 1e-4);
    }
  }
}

}  // namespace
}  // namespace ember
