// Autodiff edge cases found in review.
#include <algorithm>
#include <array>
#include <cmath>
#include <thread>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_tensor;

// d/dx prod(x) at x = [2, 0, 3] is [0, 6, 0].
TEST(AutodiffEdgeCases, ProdGradientWithAZeroInput) {
  auto x = Tensor<1>::from_floats({2.0, 0.0, 3.0}).require_grad();
  Gradients grads = x.prod().backward();
  expect_tensor(x.grad(grads).value(), Shape{3}, {0, 6, 0});
}

// f(X) = sum_i max_j exp((X X)_ij) X_ij, in double with plain loops.
double max_exp_loss(const std::array<double, 4>& x) {
  double total = 0;
  for (int i = 0; i < 2; ++i) {
    double best = -1e300;
    for (int j = 0; j < 2; ++j) {
      double xx = x[i * 2] * x[j] + x[i * 2 + 1] * x[2 + j];
      best = std::max(best, std::exp(xx) * x[i * 2 + j]);
    }
    total += best;
  }
  return total;
}

TEST(AutodiffEdgeCases, BackwardTwiceGivesTheSameGradients) {
  auto x = Tensor<2>::from_floats({{1.0, -2.0}, {0.5, 3.0}}).require_grad();
  auto loss = (x.matmul(x).exp() * x).max_dim(1).sum();
  auto g1 = x.grad(loss.backward()).value().to_data();
  auto g2 = x.grad(loss.backward()).value().to_data();
  g2.assert_approx_eq(g1, Tolerance::rel_abs(1e-6, 1e-6));
  // And both are the gradient: central differences of the same function in double.
  const std::array<double, 4> x0 = {1.0, -2.0, 0.5, 3.0};
  std::vector<double> fd;
  for (int k = 0; k < 4; ++k) {
    std::array<double, 4> hi = x0, lo = x0;
    hi[k] += 1e-6;
    lo[k] -= 1e-6;
    fd.push_back((max_exp_loss(hi) - max_exp_loss(lo)) / 2e-6);
  }
  expect_tensor(x.grad(loss.backward()).value(), Shape{2, 2}, fd, 1e-4);
}

TEST(AutodiffEdgeCases, IntCastRoundTripIsConstant) {
  auto x = Tensor<1>::from_floats({1.5, -2.5, 3.25}).require_grad();
  auto loss = (x.int_().float_() * x).sum();  // d/dx = trunc(x)
  expect_tensor(x.grad(loss.backward()).value(), Shape{3}, {1, -2, 3});
}

// A constant made by cheap ops from a materialized tensor (a class mask from targets) is not
// kept by the tape: backward computes it again from the targets, which the tape keeps. The
// gradient must be the mask even after the user's handles to the targets and the mask are gone
// and other flushes ran in between.
TEST(AutodiffEdgeCases, ConstantRecomputedFromKeptTargets) {
  auto w = Tensor<2>::from_floats({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, 1, 1}}).require_grad();
  Tensor<1> loss;
  {
    auto targets = Tensor<1, Int>::from_ints({2, 0, 1, 2});
    targets.to_data();  // materialized: the recipe's leaf
    auto classes = Tensor<1, Int>::arange(0, 3).unsqueeze_dim<2>(0);
    auto mask = classes.equal(targets.unsqueeze_dim<2>(1)).float_() * 3.0;
    loss = (w * mask).sum();
  }
  loss.to_data();
  Tensor<1, Int>::from_ints({7, 7, 7, 7}).to_data();  // another flush, other buffers
  std::vector<double> expected(12, 0.0);
  const int target[4] = {2, 0, 1, 2};
  for (int r = 0; r < 4; ++r) expected[r * 3 + target[r]] = 3.0;
  expect_tensor(w.grad(loss.backward()).value(), Shape{4, 3}, expected);
}

// The recipe's kept targets are not overwritten in place: a later op of the same flush that
// could take their buffer (same shape and dtype, the user's handle gone) must leave them to
// backward.
TEST(AutodiffEdgeCases, RecipeInputsAreNotReusedInPlace) {
  auto w = Tensor<2>::from_floats({{1, 2, 3}, {4, 5, 6}}).require_grad();
  Tensor<1> loss;
  Tensor<1, Int> shifted;
  {
    auto targets = Tensor<1, Int>::from_ints({2, 0});
    targets.to_data();
    auto classes = Tensor<1, Int>::arange(0, 3).unsqueeze_dim<2>(0);
    loss = (w * classes.equal(targets.unsqueeze_dim<2>(1)).float_()).sum();
    shifted = targets + 1;  // may reuse the targets' buffer if nothing else held it
  }
  loss.to_data();
  EXPECT_EQ(shifted.to_data().to_vec<int64_t>(), (std::vector<int64_t>{3, 1}));
  expect_tensor(w.grad(loss.backward()).value(), Shape{2, 3}, {0, 0, 1, 1, 0, 0});
}

// The same with a constant read from a larger materialized tensor (two elements of sixty): the
// tape keeps the constant's value rather than the larger tensor, and the gradient is the same.
TEST(AutodiffEdgeCases, ConstantFromALargerTensorIsKept) {
  auto x = Tensor<1>::from_floats({1, 2}).require_grad();
  Tensor<1> loss;
  {
    std::vector<double> big(60);
    for (int i = 0; i < 60; ++i) big[i] = 0.5 * i;
    auto source = Tensor<1>::from_data(TensorData(big, Shape{60}).convert(DType::F32));
    source.to_data();
    auto c = source.slice({Range(10, 12)}).exp();
    loss = (x * c).sum();
  }
  loss.to_data();
  expect_tensor(x.grad(loss.backward()).value(), Shape{2}, {std::exp(5.0), std::exp(5.5)}, 1e-4);
}

TEST(AutodiffEdgeCases, MaskWhereWithBroadcastOperands) {
  auto a = Tensor<2>::from_floats({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}).require_grad();  // [2,3]
  auto b = Tensor<2>::from_floats({{10.0}, {20.0}}).require_grad();                    // [2,1]
  auto mask = Tensor<2>::from_floats({{1.0, 0.0, 1.0}}).greater_elem(0.5);             // [1,3]
  auto loss = (a.mask_where(mask, b) * 2.0).sum();
  Gradients grads = loss.backward();
  expect_tensor(a.grad(grads).value(), Shape{2, 3}, {0, 2, 0, 0, 2, 0});
  expect_tensor(b.grad(grads).value(), Shape{2, 1}, {4, 4});
}

TEST(AutodiffEdgeCases, MaxOfRecomputedChainUnderBalanced) {
  CheckpointingGuard guard(Checkpointing::balanced);
  auto x = Tensor<2>::from_floats({{0.1, 0.7, 0.3}, {0.9, 0.2, 0.4}}).require_grad();
  auto z = x * 1.7 + 0.3;
  auto loss = z.max_dim(1).sum();
  expect_tensor(x.grad(loss.backward()).value(), Shape{2, 3}, {0, 1.7, 0, 1.7, 0, 0});
}

TEST(AutodiffEdgeCases, ValueUsedBeforeAndAfterAFlush) {
  auto x = Tensor<1>::from_floats({1.0, 2.0}).require_grad();
  auto y = x.exp();
  y.to_data();                // flush
  auto loss = (y * x).sum();  // d/dx = e^x (1 + x)
  expect_tensor(x.grad(loss.backward()).value(), Shape{2}, {std::exp(1.0) * 2, std::exp(2.0) * 3},
                1e-4);
}

TEST(AutodiffEdgeCases, NoGradGuardIsPerThread) {
  auto x = Tensor<1>::from_floats({1.0, 2.0}).require_grad();
  NoGradGuard outer;
  bool other_tracked = false;
  std::thread t([&] { other_tracked = (x * 2.0).is_require_grad(); });
  t.join();
  { NoGradGuard inner; }
  EXPECT_TRUE(other_tracked);
  EXPECT_FALSE((x * 2.0).is_require_grad());
}

}  // namespace
}  // namespace ember
