// Long reductions over few rows are split in two (kernels/row/split_reductions.h): same values as
// the CPU, and more than one workgroup's worth of kernels.
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(SplitReductions, LongRowsMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto x = Tensor<2>::from_data(testing::host_uniform({3, 1 << 17}, 81), dev);
    auto v = Tensor<1>::from_data(testing::host_uniform({1 << 18}, 82), dev);
    return {x.sum_dim(1).raw(), x.max_dim(1).raw(),
            x.min_dim(0).raw(), (x * x).mean_dim(1).raw(),
            v.mean().raw(),     (v - v.max()).exp().sum().raw(),
            x.argmax(1).raw(),  x.cast(DType::F64).sum().raw()};
  });
}

TEST(SplitReductions, LossOfABatchRunsOnManyWorkgroups) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  auto x = Tensor<2>::from_data(testing::host_uniform({64, 1024}, 83), dev);
  x.sum().to_data();  // compile
  reset_stats(dev);
  float got = x.sum().into_scalar();
  EXPECT_EQ(stats(dev).kernels_launched, 2) << "chunks, then the partial results";
  auto host = testing::host_uniform({64, 1024}, 83).to_vec<double>();
  double want = 0;
  for (double h : host) want += h;
  EXPECT_NEAR(got, want, 1e-3 * std::max(1.0, std::abs(want)));
}

}  // namespace
}  // namespace ember
