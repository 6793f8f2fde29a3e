// The attention primitive (ir::OpKind::Attention) on the test device against the CPU reference
// (runtime/cpu/attention.cc): the fused tensor-core kernel on CUDA (f16/bf16, head dims 64 and
// 128), the composite it is rewritten into elsewhere (Vulkan, f32, other head dims), over
// causal masks aligned at the bottom right, grouped-query heads, ragged lengths, a strided
// query, a sequence of one and queries that see no key.
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "frontend/activation.h"
#include "frontend/module.h"
#include "kernels/attention/family.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

struct Case {
  int64_t batch, heads, kv_heads, seq_q, seq_k, dim;
  bool causal;
};

// Inputs from host data: q as the permute of a [batch, seq, heads, dim] tensor (the layout a
// projection gives), k and v direct.
std::vector<RawTensor> run_case(const Device& dev, const Case& c, DType t, uint32_t seed) {
  auto q =
      Tensor<4>::from_data(testing::host_uniform({c.batch, c.seq_q, c.heads, c.dim}, seed), dev)
          .swap_dims(1, 2)
          .cast(t);
  auto k = Tensor<4>::from_data(
               testing::host_uniform({c.batch, c.kv_heads, c.seq_k, c.dim}, seed + 1), dev)
               .cast(t);
  auto v = Tensor<4>::from_data(
               testing::host_uniform({c.batch, c.kv_heads, c.seq_k, c.dim}, seed + 2, -1, 1), dev)
               .cast(t);
  return {module::attention(q, k, v, {.causal = c.causal}).cast(DType::F32).raw()};
}

const Case kCases[] = {
    {2, 4, 4, 200, 200, 64, false}, {2, 4, 4, 200, 200, 64, true},
    {1, 8, 2, 129, 300, 64, true},  {1, 8, 2, 300, 129, 64, true},  // queries that see no key
    {3, 2, 1, 77, 77, 128, true},   {2, 2, 2, 1, 1, 64, false},
    {1, 2, 2, 5, 260, 128, false},  {1, 2, 1, 64, 48, 32, true},  // head dim 32: composite
};

TEST(AttentionKernel, HalvesMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  uint32_t seed = 500;
  for (const Case& c : kCases) {
    for (DType t : {DType::BF16, DType::F16}) {
      SCOPED_TRACE(absl::StrCat(c.batch, "x", c.heads, "(", c.kv_heads, ")x", c.seq_q, "x", c.seq_k,
                                "x", c.dim, c.causal ? " causal " : " ", dtype_name(t)));
      // P rounds to the operands' type before P V (as flash attention's kernels do).
      testing::expect_same_fused_and_unfused(
          [&](const Device& dev) { return run_case(dev, c, t, seed); }, 2e-2, 2e-2);
    }
    seed += 3;
  }
}

TEST(AttentionKernel, F32RunsTheCompositeAndMatchesTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused(
      [](const Device& dev) {
        return run_case(dev, {2, 4, 2, 50, 70, 64, true}, DType::F32, 7);
      },
      1e-4, 1e-5);
}

// On CUDA with tensor cores a half-precision attention is one kernel; with the family switched
// off (EMBER_FUSED_ATTENTION=0) it is the composite's several, with the same values.
TEST(AttentionKernel, OneKernelOnCuda) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  EMBER_SKIP_UNLESS(dev.type() == DeviceType::Cuda, "the fused kernel runs on CUDA");
  const Case c{2, 4, 4, 256, 256, 64, true};
  auto q = Tensor<4>::from_data(testing::host_uniform({2, 4, 256, 64}, 1), dev).cast(DType::BF16);
  auto k = Tensor<4>::from_data(testing::host_uniform({2, 4, 256, 64}, 2), dev).cast(DType::BF16);
  auto v = Tensor<4>::from_data(testing::host_uniform({2, 4, 256, 64}, 3), dev).cast(DType::BF16);
  sync(dev);
  auto kernels_of = [&] {
    const int64_t before = stats(dev).kernels_launched;
    TensorData out = module::attention(q, k, v, {.causal = c.causal}).to_data();
    return std::make_pair(stats(dev).kernels_launched - before, out);
  };
  auto [fused, a] = kernels_of();
  EXPECT_EQ(fused, 1);
  setenv("EMBER_FUSED_ATTENTION", "0", 1);
  auto [composite, b] = kernels_of();
  unsetenv("EMBER_FUSED_ATTENTION");
  EXPECT_GT(composite, 1);
  a.convert(DType::F32).assert_approx_eq(b.convert(DType::F32), {2e-2, 2e-2});
  std::cout << "attention on " << dev.to_string() << ": fused " << fused << " kernel, composite "
            << composite << "\n";
}

// Heads cut from one projection ([B, S, 3 * H * D] -> q, k, v as [B, H, S, D] views, as a
// transformer writes them) are read where they lie: on CUDA the projection and the attention
// are the only kernels; values against the CPU everywhere.
TEST(AttentionKernel, ProjectionHeadsAreReadInPlace) {
  EMBER_REQUIRE_GPU_DEVICE();
  const int64_t b = 2, s = 96, h = 3, d = 64;
  auto inputs = [&](const Device& dev) {
    return std::make_pair(
        Tensor<3>::from_data(testing::host_uniform({b, s, 32}, 11, -1, 1), dev).cast(DType::BF16),
        Tensor<2>::from_data(testing::host_uniform({32, 3 * h * d}, 12, -0.3, 0.3), dev)
            .cast(DType::BF16));
  };
  auto attend = [&](const Tensor<3>& x, const Tensor<2>& w) {
    auto qkv = x.matmul(w.reshape({1, 32, 3 * h * d}));
    auto head = [&](int64_t i) {
      return qkv.narrow(2, i * h * d, h * d).reshape({b, s, h, d}).swap_dims(1, 2);
    };
    return module::attention(head(0), head(1), head(2), {.causal = true}).cast(DType::F32);
  };
  testing::expect_same_fused_and_unfused(
      [&](const Device& dev) -> std::vector<RawTensor> {
        auto [x, w] = inputs(dev);
        return {attend(x, w).raw()};
      },
      2e-2, 2e-2);
  Device dev = testing::gpu_device();
  if (dev.type() != DeviceType::Cuda) return;
  auto [x, w] = inputs(dev);
  attend(x, w).to_data();  // compile
  reset_stats(dev);
  attend(x, w).to_data();
  EXPECT_EQ(stats(dev).kernels_launched, 3) << "projection, attention, the f32 copy";
}

// A training step's gradients: on CUDA the primitive's fused forward and its composite backward
// (probabilities and score gradient computed once for the three operands), elsewhere the
// composite throughout; against the CPU reference.
TEST(AttentionKernel, GradientsMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    testing::expect_same_fused_and_unfused(
        [&](const Device& dev) -> std::vector<RawTensor> {
          auto make = [&](Shape s, uint32_t seed) {
            return Tensor<4>::from_data(testing::host_uniform(s, seed, -1, 1), dev)
                .cast(DType::BF16)
                .require_grad();
          };
          auto q = make({2, 4, 96, 64}, 21), k = make({2, 2, 120, 64}, 22),
               v = make({2, 2, 120, 64}, 23);
          auto w = Tensor<4>::from_data(testing::host_uniform({2, 4, 96, 64}, 24), dev);
          auto y = module::attention(q, k, v, {.causal = causal});
          Gradients g = (y.cast(DType::F32) * w).sum().backward();
          return {y.cast(DType::F32).raw(), q.grad(g)->cast(DType::F32).raw(),
                  k.grad(g)->cast(DType::F32).raw(), v.grad(g)->cast(DType::F32).raw()};
        },
        3e-2, 3e-2);
  }
}

// Attention written by hand with frontend ops (scores in f32, softmax, weights cast back): the
// same values as the CPU, and on CUDA one kernel (kernels/attention/pattern.h).
Tensor<4> by_hand(const Tensor<4>& q, const Tensor<4>& k, const Tensor<4>& v) {
  auto scores = q.matmul(k.swap_dims(2, 3)).cast(DType::F32) * 0.125;
  return activation::softmax(scores, 3).cast(q.dtype()).matmul(v);
}

TEST(AttentionKernel, HandWrittenMatchesTheCpuAndIsOneKernelOnCuda) {
  EMBER_REQUIRE_GPU_DEVICE();
  auto inputs = [](const Device& dev) {
    std::vector<Tensor<4>> t;
    for (uint32_t seed : {11u, 12u, 13u}) {
      t.push_back(Tensor<4>::from_data(testing::host_uniform({2, 4, 150, 64}, seed), dev)
                      .cast(DType::BF16));
    }
    return t;
  };
  testing::expect_same_fused_and_unfused(
      [&](const Device& dev) -> std::vector<RawTensor> {
        auto t = inputs(dev);
        return {by_hand(t[0], t[1], t[2]).cast(DType::F32).raw()};
      },
      2e-2, 2e-2);
  Device dev = testing::gpu_device();
  EMBER_SKIP_UNLESS(dev.type() == DeviceType::Cuda, "the fused kernel runs on CUDA");
  auto t = inputs(dev);
  sync(dev);
  const int64_t before = stats(dev).kernels_launched;
  TensorData out = by_hand(t[0], t[1], t[2]).to_data();
  const int64_t kernels = stats(dev).kernels_launched - before;
  EXPECT_EQ(kernels, 1);
  std::cout << "hand-written attention on " << dev.to_string() << ": " << kernels << " kernel\n";
}

// Hand-written attention whose scale changes from one step to the next, the step otherwise the
// same graph: the matched kernel bakes the scale in, so a rewrite kept from the step before
// must not be reused with the old scale (each step against the CPU). The scales stay small: the
// fused kernel keeps the scores in f32 where the program rounds them to bf16, and with these
// inputs (uniform in [-2, 2], scores up to about 40) that rounding alone moves outputs by up to
// 0.009 at 0.125 but 0.054 at 0.5, past the tolerance (PyTorch on the CPU, these sizes and
// inputs: scripts/attention_scale_rounding.py). A stale scale moves them by at least 0.19
// (0.0625 for 0.03125) and 0.61 (0.125 for 0.0625).
TEST(AttentionKernel, HandWrittenScaleChangesBetweenRepeatedSteps) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto step = [](const Device& d, double scale) -> std::vector<RawTensor> {
    std::vector<Tensor<4>> t;
    for (uint32_t seed : {21u, 22u, 23u}) {
      t.push_back(
          Tensor<4>::from_data(testing::host_uniform({1, 2, 130, 64}, seed), d).cast(DType::BF16));
    }
    auto scores = t[0].matmul(t[1].swap_dims(2, 3)).cast(DType::F32) * scale;
    return {activation::softmax(scores, 3).cast(DType::BF16).matmul(t[2]).cast(DType::F32).raw()};
  };
  for (double scale : {0.125, 0.125, 0.125, 0.0625, 0.0625, 0.03125}) {
    SCOPED_TRACE(scale);
    testing::expect_same([&](const Device& d) { return step(d, scale); }, dev, 2e-2, 2e-2);
  }
}

}  // namespace
}  // namespace ember
