// Analytic gradient checks and the autodiff API's semantics (tape, leaves, detach, no-grad,
// checkpointing policies). Finite-difference checks of every op live in grad_check_test.cc.
#include <optional>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

TEST(Autodiff, SquareSumGivesTwiceX) {
  auto x = Tensor<1>::from_floats({1.0, 2.0, 3.0}).require_grad();
  auto loss = x.powf_scalar(2.0).sum();
  Gradients grads = loss.backward();
  expect_tensor(x.grad(grads).value(), Shape{3}, {2, 4, 6});
  EXPECT_FLOAT_EQ(loss.into_scalar(), 14.0f);
}

// A value the checkpointing policy recomputes (exp: a memory-bound op) is read instead when the
// forward was already flushed and the value is still held: backward records fewer ops, and the
// gradient, 2 exp(2x), is the same.
TEST(Autodiff, BackwardReadsAHeldComputedValueInsteadOfRecomputingIt) {
  Device cpu = Device::cpu();
  auto ops_recorded_by_backward = [&](bool hold) {
    auto x = Tensor<1>::from_data({0.5, 1.0}, cpu).require_grad();
    std::optional<Tensor<1>> h = x.exp();
    auto loss = (*h * *h).sum();
    sync(cpu);  // the loss read first: the forward is computed
    if (!hold) h.reset();
    reset_stats(cpu);
    Gradients g = loss.backward();
    expect_tensor(x.grad(g).value(), Shape{2}, {2 * std::exp(1.0), 2 * std::exp(2.0)});
    return stats(cpu).ops_recorded;
  };
  const int64_t held = ops_recorded_by_backward(true), dropped = ops_recorded_by_backward(false);
  EXPECT_LT(held, dropped);
}

// The Burn Book's example: exp((x + y) @ x), seeded with ones.
TEST(Autodiff, BurnBookMatmulExample) {
  std::vector<double> xv = {0.5, -1.0, 2.0, 0.25}, yv = {1.0, 0.5, -0.5, 2.0};
  auto x = Tensor<2>::from_floats({{0.5, -1.0}, {2.0, 0.25}});
  auto y = Tensor<2>::from_floats({{1.0, 0.5}, {-0.5, 2.0}}).require_grad();
  auto out = (x + y).matmul(x).exp();
  Gradients grads = out.backward();
  // d/dy sum(exp(S @ x)) with S = x + y is (exp(S @ x)) @ x^T.
  double s[4], e[4], expected[4];
  for (int i = 0; i < 4; ++i) s[i] = xv[i] + yv[i];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j)
      e[i * 2 + j] = std::exp(s[i * 2] * xv[j] + s[i * 2 + 1] * xv[2 + j]);
  }
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 2; ++k)
      expected[i * 2 + k] = e[i * 2] * xv[k * 2] + e[i * 2 + 1] * xv[k * 2 + 1];
  }
  expect_tensor(y.grad(grads).value(), Shape{2, 2},
                {expected[0], expected[1], expected[2], expected[3]}, 1e-4);
  EXPECT_FALSE(x.grad(grads).has_value()) << "x was not marked require_grad";
}

TEST(Autodiff, GradientsAccumulateOverUses) {
  auto x = Tensor<1>::from_floats({1.0, -2.0}).require_grad();
  auto loss = (x * x + x * 3.0 + x.exp()).sum();  // d/dx = 2x + 3 + e^x
  Gradients grads = loss.backward();
  expect_tensor(x.grad(grads).value(), Shape{2}, {2 + 3 + std::exp(1.0), -4 + 3 + std::exp(-2.0)});
}

TEST(Autodiff, BroadcastGradientsAreSummed) {
  auto w = Tensor<2>::from_floats({{1.0, 2.0, 3.0}}).require_grad();  // [1, 3]
  auto b = Tensor<2>::from_floats({{10.0}, {20.0}}).require_grad();   // [2, 1]
  auto loss = (w * b).sum();
  Gradients grads = loss.backward();
  expect_tensor(w.grad(grads).value(), Shape{1, 3}, {30, 30, 30});
  expect_tensor(b.grad(grads).value(), Shape{2, 1}, {6, 6});
}

TEST(Autodiff, DetachStopsGradients) {
  auto x = Tensor<1>::from_floats({2.0, 3.0}).require_grad();
  auto loss = (x * x.detach()).sum();  // only the first factor is differentiated
  Gradients grads = loss.backward();
  expect_tensor(x.grad(grads).value(), Shape{2}, {2, 3});
  EXPECT_FALSE(x.detach().is_require_grad());
  EXPECT_TRUE(x.is_require_grad());
  EXPECT_TRUE((x * 2.0).is_require_grad());
}

TEST(Autodiff, NoGradGuardRecordsNothing) {
  auto x = Tensor<1>::from_floats({1.0}).require_grad();
  Tensor<1> y;
  {
    NoGradGuard guard;
    y = x * 2.0;
  }
  EXPECT_FALSE(y.is_require_grad());
  expect_error([&] { y.sum().backward(); }, {"backward", "requires grad"});
  EXPECT_TRUE((x * 2.0).is_require_grad()) << "the guard restores grad mode";
}

TEST(Autodiff, UnusedLeafHasNoGradient) {
  auto x = Tensor<1>::from_floats({1.0, 2.0}).require_grad();
  auto unused = Tensor<1>::from_floats({5.0}).require_grad();
  auto loss = x.sum();
  Gradients grads = loss.backward();
  EXPECT_FALSE(unused.grad(grads).has_value());
  EXPECT_EQ(grads.size(), 1u);
  ASSERT_TRUE(x.grad_remove(grads).has_value());
  EXPECT_FALSE(x.grad(grads).has_value());
  EXPECT_TRUE(grads.empty());
}

TEST(Autodiff, GradientOfTheLeafItself) {
  auto x = Tensor<2>::from_floats({{1.0, 2.0}}).require_grad();
  Gradients grads = x.backward();
  expect_tensor(x.grad(grads).value(), Shape{1, 2}, {1, 1});
}

TEST(Autodiff, GradientThroughArgmaxIsCut) {
  auto x = Tensor<1>::from_floats({1.0, 3.0, 2.0}).require_grad();
  auto picked = x.argmax(0).float_();  // an index: no gradient flows through it
  auto loss = (x * picked).sum();      // d/dx = picked = 1 everywhere
  Gradients grads = loss.backward();
  expect_tensor(x.grad(grads).value(), Shape{3}, {1, 1, 1});
}

TEST(Autodiff, IntermediateTensorsAreNotLeaves) {
  auto x = Tensor<1>::from_floats({1.0}).require_grad();
  auto h = x * 2.0;
  Gradients grads = (h * h).sum().backward();
  EXPECT_FALSE(h.grad(grads).has_value());
  expect_tensor(x.grad(grads).value(), Shape{1}, {8});
}

TEST(Autodiff, RequireGradOnIntsIsAnError) {
  auto i = Tensor<1, Int>::from_ints({1, 2});
  expect_error([&] { ember::require_grad(i.raw()); }, {"require_grad", "float", "i32"});
}

TEST(Autodiff, BackwardAfterTheForwardRan) {
  auto x = Tensor<1>::from_floats({0.5, 1.5}).require_grad();
  auto y = x.sin();
  auto loss = y.sum();
  EXPECT_NEAR(loss.into_scalar(), std::sin(0.5) + std::sin(1.5), 1e-6);  // forward runs first
  Gradients grads = loss.backward();
  expect_tensor(x.grad(grads).value(), Shape{2}, {std::cos(0.5), std::cos(1.5)});
}

TEST(Autodiff, LongChainsReleaseWithoutRecursion) {
  auto x = Tensor<1>::from_floats({1.0}).require_grad();
  Tensor<1> y = x;
  for (int i = 0; i < 200000; ++i) y = y.detach() * 1.0 + y * 0.0;  // tape grows one node deep
  // The chain still computes (and its tape is released when y goes, without recursing): y = 1,
  // and dy/dx = 0 (every step multiplies the differentiable path by 0).
  EXPECT_EQ(y.into_scalar(), 1.0f);
  expect_tensor(x.grad(y.sum().backward()).value(), Shape{1}, {0.0});
}

// A tiny "model": every policy must give the same gradients.
std::vector<Tensor<2>> policy_grads(Checkpointing policy) {
  auto w1 = Tensor<2>::from_floats({{0.5, -0.25, 1.0}, {0.75, 0.5, -1.5}}).require_grad();
  auto w2 = Tensor<2>::from_floats({{1.0}, {-2.0}, {0.5}}).require_grad();
  auto x = Tensor<2>::from_floats({{1.0, 2.0}, {-1.0, 0.5}, {3.0, -2.0}});
  CheckpointingGuard guard(policy);
  auto h = activation::gelu(x.matmul(w1)).tanh();
  auto loss = activation::sigmoid(h.matmul(w2)).sum() + h.exp().mean();
  Gradients grads = loss.backward();
  return {w1.grad(grads).value(), w2.grad(grads).value()};
}

TEST(Autodiff, PoliciesGiveTheSameGradients) {
  auto saved = policy_grads(Checkpointing::save_all);
  auto balanced = policy_grads(Checkpointing::balanced);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(saved[i].all_close(balanced[i], 1e-5, 1e-6))
        << saved[i].to_string() << " vs " << balanced[i].to_string();
  }
}

TEST(Autodiff, PolicyCanBeChosenPerBackwardCall) {
  auto x = Tensor<1>::from_floats({0.3, -0.7}).require_grad();
  auto loss = (x.exp() * x.sin()).sum();
  auto a = x.grad(loss.backward(Checkpointing::save_all)).value();
  auto b = x.grad(loss.backward(Checkpointing::balanced)).value();
  EXPECT_TRUE(a.all_close(b, 1e-6, 1e-7));
}

// Random values are recomputed from their seed and offset, so a dropout-like mask gives the
// same gradient whether it was kept or recomputed.
TEST(Autodiff, RandomMasksRecomputeBitExactly) {
  auto run = [](Checkpointing policy) {
    CheckpointingGuard guard(policy);
    seed(1234);
    auto x = Tensor<2>::ones({4, 8}).require_grad();
    auto mask = Tensor<2>::random({4, 8}, Distribution::uniform(0, 1)).greater_elem(0.5).float_();
    auto loss = (x.exp() * mask).sum();
    return x.grad(loss.backward()).value().to_data().to_vec<float>();
  };
  EXPECT_EQ(run(Checkpointing::save_all), run(Checkpointing::balanced));
}

// A 16-layer MLP: with `balanced` the tape keeps only matmul outputs, so the step's peak memory
// is lower than with `save_all`, which keeps every activation. Measured on the reference
// executor, which stores every value the tape keeps (a fusing device stores fewer either way).
int64_t mlp_step_peak(Checkpointing policy) {
  CheckpointingGuard guard(policy);
  Device dev = Device::cpu_reference();
  seed(7);
  const int64_t width = 128, batch = 64;
  std::vector<Tensor<2>> ws;
  for (int i = 0; i < 16; ++i) {
    ws.push_back(
        (Tensor<2>::random({width, width}, Distribution::normal(0, 0.1), dev)).require_grad());
  }
  auto x = Tensor<2>::random({batch, width}, Distribution::normal(0, 1), dev);
  ember::sync(dev);
  reset_stats(dev);
  Tensor<2> h = x;
  for (auto& w : ws) h = activation::relu(h.matmul(w) * 0.5 + 0.1);
  Gradients grads = h.powf_scalar(2.0).mean().backward();
  for (auto& w : ws) w.grad(grads).value().to_data();
  return stats(dev).peak_bytes;
}

TEST(Autodiff, BalancedCheckpointingLowersPeakMemory) {
  int64_t save_all = mlp_step_peak(Checkpointing::save_all);
  int64_t balanced = mlp_step_peak(Checkpointing::balanced);
  double ratio = static_cast<double>(balanced) / static_cast<double>(save_all);
  std::cout << "16-layer MLP step peak: save_all " << save_all << " B, balanced " << balanced
            << " B, ratio " << ratio << "\n";
  EXPECT_LT(ratio, 0.8);
}

}  // namespace
}  // namespace ember
