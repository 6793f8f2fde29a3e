// Edge cases found in review: split reductions, lowering reuse scalars, autodiff on the GPU.
#include <algorithm>
#include <cmath>
#include <limits>

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
    auto want = run(Device::cpu_reference(), iv, fv);
    for (size_t i = 0; i < got.size(); ++i)
      got[i].assert_approx_eq(want[i], Tolerance::rel_abs(1e-5, 1e-6));
  }
  EXPECT_GE(stats(gpu).lowerings_reused, 2);
}

TEST(JitEdgeCases, MaxGradientOfRecomputedChainOnGpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device gpu = testing::gpu_device();
  // The closed form: d/dx_ij of sum_i max_j z_ij, z = tanh(x w + 0.37 sin x), is
  // (1 - z^2)(w_j + 0.37 cos x_ij) at each row's maximum and 0 elsewhere (no ties here).
  TensorData xd = testing::host_uniform({8, 1000}, 64), wd = testing::host_uniform({1, 1000}, 65);
  std::vector<double> xs = xd.to_vec<double>(), ws = wd.to_vec<double>();
  std::vector<double> expected(xs.size(), 0.0);
  for (int i = 0; i < 8; ++i) {
    int best = 0;
    double best_z = -2;
    for (int j = 0; j < 1000; ++j) {
      double z = std::tanh(xs[i * 1000 + j] * ws[j] + 0.37 * std::sin(xs[i * 1000 + j]));
      if (z > best_z) best_z = z, best = j;
    }
    expected[i * 1000 + best] =
        (1 - best_z * best_z) * (ws[best] + 0.37 * std::cos(xs[i * 1000 + best]));
  }
  for (const Device& dev : {gpu, Device::cpu_reference()}) {
    SCOPED_TRACE(dev.to_string());
    auto x = Tensor<2>::from_data(xd, dev).require_grad();
    auto w = Tensor<2>::from_data(wd, dev);
    auto z = (x * w + x.sin() * 0.37).tanh();
    auto loss = z.max_dim(1).sum();
    testing::expect_tensor(x.grad(loss.backward()).value(), Shape{8, 1000}, expected, 1e-4);
  }
}

// Gradients do not cross devices yet: moving a tracked tensor is an error naming the way out,
// not a gradient that silently misses the path.
TEST(JitEdgeCases, TrackedTensorsDoNotMoveAcrossDevicesSilently) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device gpu = testing::gpu_device();
  auto x = Tensor<1>::from_floats({1.0, 2.0}, Device::cpu_reference()).require_grad();
  testing::expect_error([&] { x.to_device(gpu); }, {"to_device", "requires grad", "detach"});
  auto moved = x.detach().to_device(gpu);
  EXPECT_FALSE(moved.is_require_grad());
  {
    NoGradGuard no_grad;
    EXPECT_EQ(x.to_device(gpu).into_data().to_vec<float>(), (std::vector<float>{1, 2}));
  }
}

// Data-dependent index errors on every device: a 64-bit index is printed whole (GPU kernels
// used to report its low 32 bits: 5000000000 read as 705032704), and one_hot's classes are
// checked like gather's indices (a class out of range was a silent zero row).
TEST(JitEdgeCases, IndexErrorsNameWholeValuesOnEveryDevice) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (const Device& dev : {Device::cpu_reference(), testing::gpu_device()}) {
    SCOPED_TRACE(dev.to_string());
    for (bool fused : {true, false}) {
      FusionGuard guard(fused);
      auto x = Tensor<1>::from_data({1.0, 2.0, 3.0}, dev);
      auto idx = Tensor<1, Int>::from_data(
          TensorData(std::vector<int64_t>{0, 5000000000, 1}, Shape{3}), dev);
      auto g = x.gather(0, idx) * 2.0;
      testing::expect_error([&] { g.to_data(); }, {"gather", "index 5000000000", "out of range"});
      auto neg = x.gather(0, Tensor<1, Int>::from_data(
                                 TensorData(std::vector<int64_t>{-7000000000}, Shape{1}), dev));
      testing::expect_error([&] { neg.to_data(); }, {"index -7000000000"});
      auto oh = Tensor<1, Int>::from_ints({0, 3}, dev).one_hot(3);
      testing::expect_error([&] { oh.to_data(); }, {"one_hot", "index 3", "out of range"});
      testing::expect_tensor(Tensor<1, Int>::from_ints({1}, dev).one_hot(2), Shape{1, 2}, {0, 1});
    }
  }
}

// Float to integer casts have one defined behaviour on every device (docs/ops.md): NaN is 0,
// values truncate toward zero and saturate to the type's range, +-inf to its ends. (The CPU
// wrapped out-of-range values through int64, GPUs saturated or did what their hardware does.)
TEST(JitEdgeCases, FloatToIntCastsSaturateOnEveryDevice) {
  EMBER_REQUIRE_GPU_DEVICE();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> xs = {std::nan(""), inf,  -inf,  3e9,  -3e9,  2.7,
                                  -2.7,         1e20, 300.0, -5.0, 255.9, 2147483520.0};
  auto expected = [&](double lo, double hi) {
    std::vector<double> out;
    for (double x : xs) out.push_back(std::isnan(x) ? 0 : std::clamp(std::trunc(x), lo, hi));
    return out;
  };
  const Shape s{static_cast<int64_t>(xs.size())};
  for (const Device& dev : {Device::cpu_reference(), testing::gpu_device()}) {
    SCOPED_TRACE(dev.to_string());
    for (bool fused : {true, false}) {
      FusionGuard guard(fused);
      for (DType from : {DType::F32, DType::F64}) {
        auto x = Tensor<1>::from_data(TensorData(xs, s), dev).cast(from);
        auto to = [&](DType t) { return Tensor<1, Int>(ops::cast((x * 1.0).raw(), t)); };
        testing::expect_tensor(to(DType::I32), s, expected(-2147483648.0, 2147483647.0));
        testing::expect_tensor(to(DType::U8), s, expected(0, 255));
        auto i64 = to(DType::I64).to_data().to_vec<int64_t>();
        EXPECT_EQ(i64[1], INT64_MAX);
        EXPECT_EQ(i64[2], INT64_MIN);
        EXPECT_EQ(i64[3], 3000000000);
        EXPECT_EQ(i64[7], INT64_MAX);
        EXPECT_EQ(i64[0], 0);
      }
    }
  }
}

}  // namespace
}  // namespace ember
