// Gradients on the GPU device against the CPU reference, in f32, fused and unfused: every case of
// tests/frontend/grad_cases.h (whose CPU gradients grad_check_test.cc checks against finite
// differences), and a two-layer MLP training step under both checkpointing policies.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/frontend/grad_cases.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::GradCase;
using Grads = std::vector<std::optional<TensorData>>;

constexpr double kRtol = 1e-4;
constexpr double kAtol = 1e-5;

void expect_same_grads(const Grads& ref, const Grads& got) {
  ASSERT_EQ(ref.size(), got.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    SCOPED_TRACE("input " + std::to_string(k));
    ASSERT_EQ(ref[k].has_value(), got[k].has_value()) << "a gradient on one device only";
    if (!ref[k]) continue;
    try {
      got[k]->assert_approx_eq(*ref[k], Tolerance::rel_abs(kRtol, kAtol));
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

// The case's gradients on `dev` and on the CPU, recorded and differentiated under `policy`.
void check_case(const GradCase& c, const Device& dev, Checkpointing policy) {
  SCOPED_TRACE(ir::checkpointing_name(policy));
  try {
    Grads ref = testing::analytic_gradients(c, DType::F32, Device::cpu_reference(), policy);
    Grads got = testing::analytic_gradients(c, DType::F32, dev, policy);
    expect_same_grads(ref, got);
  } catch (const std::exception& e) {
    ADD_FAILURE() << c.name << " threw: " << e.what();
  }
}

class GradVulkan : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradVulkan, MatchesCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  {
    SCOPED_TRACE("fused");
    check_case(GetParam(), dev, Checkpointing::balanced);
  }
  {
    SCOPED_TRACE("unfused");
    FusionGuard unfused(false);
    check_case(GetParam(), dev, Checkpointing::balanced);
  }
}

INSTANTIATE_TEST_SUITE_P(, GradVulkan, ::testing::ValuesIn(testing::grad_cases()),
                         [](const ::testing::TestParamInfo<GradCase>& info) {
                           return info.param.name;
                         });

// ---------------------------------------------------------------- an MLP training step

// Gradients of a two-layer MLP's mean softmax cross-entropy (log_softmax, then the target's
// log-probability picked with gather) with respect to its parameters and its input.
Grads mlp_step(const Device& dev, Checkpointing policy) {
  CheckpointingGuard guard(policy);
  auto x = Tensor<2>::from_data(testing::host_uniform({6, 8}, 1), dev).require_grad();
  auto w1 = Tensor<2>::from_data(testing::host_uniform({8, 16}, 2, -0.5, 0.5), dev).require_grad();
  auto b1 = Tensor<2>::from_data(testing::host_uniform({1, 16}, 3, -0.1, 0.1), dev).require_grad();
  auto w2 = Tensor<2>::from_data(testing::host_uniform({16, 4}, 4, -0.5, 0.5), dev).require_grad();
  auto b2 = Tensor<2>::from_data(testing::host_uniform({1, 4}, 5, -0.1, 0.1), dev).require_grad();
  auto target = Tensor<2, Int>::from_ints({{1}, {3}, {0}, {2}, {3}, {1}}, dev);
  auto hidden = activation::relu(x.matmul(w1) + b1);
  auto logits = hidden.matmul(w2) + b2;
  auto loss = -activation::log_softmax(logits, 1).gather(1, target).mean();
  Gradients grads = loss.backward();
  Grads out;
  for (const Tensor<2>& p : {x, w1, b1, w2, b2}) {
    auto g = p.grad(grads);
    out.push_back(g ? std::optional<TensorData>(g->to_data()) : std::nullopt);
  }
  return out;
}

TEST(GradVulkanMlp, StepMatchesCpuUnderBothPolicies) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  for (bool fused : {true, false}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    FusionGuard fusion(fused);
    for (Checkpointing policy : {Checkpointing::save_all, Checkpointing::balanced}) {
      SCOPED_TRACE(ir::checkpointing_name(policy));
      Grads ref = mlp_step(Device::cpu_reference(), policy);
      for (const auto& g : ref) ASSERT_TRUE(g.has_value()) << "every parameter gets a gradient";
      expect_same_grads(ref, mlp_step(dev, policy));
    }
  }
}

}  // namespace
}  // namespace ember
