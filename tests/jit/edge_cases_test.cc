// Edge cases found in review: split reductions, lowering reuse scalars, autodiff on the GPU.
#include "tests/frontend/test_util.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(JitEdgeCases, SplitReductionsMiddleAxisProdMinMaxAndEpilogue) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto x = Tensor<3>::from_data(testing::host_uniform({2, 1 << 15, 3}, 91, 0.999, 1.001), dev);
    auto s = x.sum_dim(1);
    auto xi = (x * 100.0).int_();
    return {x.prod_dim(1).raw(),
            x.max_dim(1).raw(),
            x.min_dim(1).raw(),
            (s * 2.0 + s.exp()).raw(),
            (x * (s / 32768.0)).sum_dim(1).raw(),
            xi.sum_dim(1).raw(),
            xi.max_dim(1).raw()};
  });
}

TEST(JitEdgeCases, ReusedLoweringTakesWideFillAndPadValues) {
  EMBER_REQUIRE_GPU_DEVICE();
  auto run = [](const Device& dev, int64_t iv, double fv) {
    auto xi = Tensor<2>::from_data(testing::host_uniform({4, 8}, 62, 0, 100), dev)
                  .int_()
                  .cast(DType::I64);
    auto xf = Tensor<2>::from_data(testing::host_uniform({4, 8}, 63), dev).cast(DType::F64);
    auto a = (xi.pad({{1, 1}, {0, 0}}, iv) + iv).float_();
    auto b = (xf.pad({{0, 0}, {2, 1}}, fv) * fv).cast(DType::F32);
    return std::vector<TensorData>{a.to_data(), b.to_data()};
  };
  Device gpu = testing::gpu_device();
  run(gpu, 1, 1.0);
  reset_stats(gpu);
  for (auto [iv, fv] : {std::pair<int64_t, double>{(int64_t{5} << 33) + 7, -3.25}, {-9, 0.5}}) {
    auto got = run(gpu, iv, fv);
    auto want = run(Device::cpu(), iv, fv);
    for (size_t i = 0; i < got.size(); ++i)
      got[i].assert_approx_eq(want[i], Tolerance::rel_abs(1e-5, 1e-6));
  }
  EXPECT_GE(stats(gpu).lowerings_reused, 2);
}

TEST(JitEdgeCases, MaxGradientOfRecomputedChainOnGpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device gpu = testing::gpu_device();
  for (const Device& dev : {gpu, Device::cpu()}) {
    auto x = Tensor<2>::from_data(testing::host_uniform({8, 1000}, 64), dev).require_grad();
    auto w = Tensor<2>::from_data(testing::host_uniform({1, 1000}, 65), dev);
    auto z = (x * w + x.sin() * 0.37).tanh();
    auto loss = z.max_dim(1).sum();
    auto g = x.grad(loss.backward()).value().sum().into_scalar();
    EXPECT_TRUE(std::isfinite(g)) << dev.to_string();
  }
}

// Gradients do not cross devices yet: moving a tracked tensor is an error naming the way out,
// not a gradient that silently misses the path.
TEST(JitEdgeCases, TrackedTensorsDoNotMoveAcrossDevicesSilently) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device gpu = testing::gpu_device();
  auto x = Tensor<1>::from_floats({1.0, 2.0}, Device::cpu()).require_grad();
  testing::expect_error([&] { x.to_device(gpu); }, {"to_device", "requires grad", "detach"});
  auto moved = x.detach().to_device(gpu);
  EXPECT_FALSE(moved.is_require_grad());
  {
    NoGradGuard no_grad;
    EXPECT_EQ(x.to_device(gpu).into_data().to_vec<float>(), (std::vector<float>{1, 2}));
  }
}

}  // namespace
}  // namespace ember
