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

// Column sums over few columns (a backward pass's bias gradients) are split into parts on the
// GPU targets, in f32 for halves: same values as the CPU.
TEST(SplitReductions, ColumnSumsMatchTheCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  for (DType t : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(dtype_name(t));
    testing::expect_same_fused_and_unfused(
        [t](const Device& dev) -> std::vector<RawTensor> {
          auto x = Tensor<2>::from_data(testing::host_uniform({4096, 96}, 84), dev).cast(t);
          auto y = Tensor<3>::from_data(testing::host_uniform({1024, 3, 40}, 85), dev).cast(t);
          return {x.sum_dim(0).cast(DType::F32).raw(), x.max_dim(0).cast(DType::F32).raw(),
                  (x * x).mean_dim(0).cast(DType::F32).raw(), y.sum_dim(0).cast(DType::F32).raw()};
        },
        t == DType::BF16 ? 1e-2 : 1e-5, t == DType::BF16 ? 1e-2 : 1e-4);
  }
}

TEST(SplitReductions, ColumnSumsRunInTwoPasses) {
  EMBER_REQUIRE_GPU_DEVICE();
  Device dev = testing::gpu_device();
  if (dev.type() == DeviceType::Cpu) GTEST_SKIP() << "the CPU target keeps column sums whole";
  auto x = Tensor<2>::from_data(testing::host_uniform({8192, 96}, 86), dev);
  x.sum_dim(0).to_data();  // compile
  reset_stats(dev);
  std::vector<double> got = x.sum_dim(0).to_data().to_vec<double>();
  EXPECT_EQ(stats(dev).kernels_launched, 2) << "parts of the columns, then the parts' sums";
  auto host = testing::host_uniform({8192, 96}, 86).to_vec<double>();
  for (int64_t c = 0; c < 96; ++c) {
    double want = 0;
    for (int64_t r = 0; r < 8192; ++r) want += host[r * 96 + c];
    EXPECT_NEAR(got[c], want, 1e-3 * std::max(1.0, std::abs(want))) << "column " << c;
  }
}

}  // namespace
}  // namespace ember
