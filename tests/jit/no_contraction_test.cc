// Generated kernels never contract a multiply and an add into an FMA on their own: fusion
// recomputes small expressions in several kernels, and a value compared for equality with a
// stored copy (the backward of max: x == max(x)) must have the same bits in each. On NVIDIA's
// compilers (CUDA and Vulkan) the contraction made that comparison fail for every element of a
// row, and the gradient 0/0 = NaN (the training fuzz, program 995, on the H100). Matmul
// accumulations ask for FMAs explicitly and keep them.
#include <gtest/gtest.h>

#include <set>

#include "ir/builder.h"
#include "jit/codegen/cuda_source.h"
#include "jit/codegen/glsl.h"
#include "jit/compile/compile.h"
#include "jit/lower/lower.h"
#include "jit/plan/plan.h"
#include "runtime/cuda/nvrtc.h"
#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::Builder;
using ir::ValueId;

// The kernels of a fused graph, lowered against contiguous layouts.
std::vector<LoweredKernel> lowered(ir::Graph& g, const std::vector<ValueId>& outs) {
  Plan plan = make_plan(g, outs, true);
  std::vector<runtime::Array> layouts;
  for (ValueId v = 0; v < g.size(); ++v)
    layouts.push_back(runtime::Array::contiguous(nullptr, g.type(v)));
  auto layout = [&](ValueId v) -> const runtime::Array& { return layouts[v]; };
  std::vector<LoweredKernel> out;
  for (int k = 0; k < static_cast<int>(plan.kernels.size()); ++k)
    out.push_back(lower_kernel(g, plan, k, layout));
  return out;
}

// x * y + z over f32.
LoweredKernel multiply_add() {
  ir::Graph g;
  Builder b(g);
  ValueId x = b.input(0, {DType::F32, {64}}), y = b.input(1, {DType::F32, {64}});
  ValueId z = b.input(2, {DType::F32, {64}});
  ValueId r = b.binary(BinaryFn::Add, b.binary(BinaryFn::Mul, x, y), z);
  return lowered(g, {r}).at(0);
}

TEST(NoContraction, CudaPointwiseHasNoFma) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  LoweredKernel lk = multiply_add();
  std::vector<char> ptx = runtime::cuda::nvrtc_compile(render_cuda(lk.desc), "mad", "sm_90a", true);
  std::string text(ptx.begin(), ptx.end());
  EXPECT_NE(text.find("mul.rn.f32"), std::string::npos) << text;
  EXPECT_EQ(text.find("fma.rn.f32"), std::string::npos) << text;
}

TEST(NoContraction, CudaSimtMatmulKeepsFma) {
  EMBER_SKIP_UNLESS(runtime::cuda::nvrtc_version() != "none", "NVRTC unavailable");
  ir::Graph g;
  Builder b(g);
  ValueId a = b.input(0, {DType::F32, {33, 17}}), c = b.input(1, {DType::F32, {17, 9}});
  LoweredKernel lk = lowered(g, {b.matmul(a, c)}).at(0);
  std::string source = render_cuda(lk.desc);
  std::vector<char> ptx = runtime::cuda::nvrtc_compile(source, "mm", "sm_90a", true);
  EXPECT_NE(std::string(ptx.begin(), ptx.end()).find("fma.rn.f32"), std::string::npos) << source;
}

TEST(NoContraction, GlslValuesArePrecise) {
  LoweredKernel lk = multiply_add();
  std::vector<uint32_t> w = compile_glsl(render_glsl(lk.desc), "mad");
  // SPIR-V: OpDecorate (71) <id> NoContraction (42) on the multiply and the add.
  int no_contraction = 0;
  for (size_t i = 5; i < w.size(); i += w[i] >> 16) {
    if ((w[i] & 0xffffu) == 71 && (w[i] >> 16) == 3 && w[i + 2] == 42) ++no_contraction;
  }
  EXPECT_GE(no_contraction, 2);
}

// The reduced fuzz program: the gradient of sum(log_softmax(norm(norm(x, 3), 2), 3) * w),
// fused, on the test device against the CPU (no FMA contraction there).
TEST(NoContraction, NormLogSoftmaxGradientMatchesCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  auto norm = [](const Tensor<4>& a, int dim) {
    auto c = a - a.mean_dim(dim);
    return c / ((c * c).mean_dim(dim) + 1.0).sqrt();
  };
  auto grad = [&](const Device& dev) {
    auto x = Tensor<4>::from_data(testing::host_uniform({1, 5, 3, 5}, 30845), dev).require_grad();
    auto w = Tensor<4>::from_data(testing::host_uniform({1, 5, 3, 5}, 977), dev);
    auto loss = (activation::log_softmax(norm(norm(x, 3), 2), 3) * w).sum();
    Gradients g = loss.backward();
    (void)loss.into_scalar<float>();
    return x.grad(g)->to_data();
  };
  TensorData ref = grad(Device::cpu_reference());
  TensorData got = grad(testing::gpu_device());
  for (double v : got.to_vec<double>()) ASSERT_TRUE(std::isfinite(v));
  got.assert_approx_eq(ref, Tolerance::rel_abs(1e-3, 1e-4));
}

}  // namespace
}  // namespace ember::jit
