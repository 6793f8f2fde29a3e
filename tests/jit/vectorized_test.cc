// Pointwise kernels over >= 1024 elements (divisible by 4) move 4 elements per access; their
// inputs may still be broadcast, viewed, reshaped or of other dtypes (read lane by lane).
#include <gtest/gtest.h>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::host_uniform;

TEST(Vectorized, MixedOperandsMatchCpu) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<2>::from_data(host_uniform({64, 48}, 1), dev);
    auto b = Tensor<2>::from_data(host_uniform({48, 64}, 2), dev).transpose();  // strided view
    auto row = Tensor<2>::from_data(host_uniform({1, 48}, 3), dev);             // broadcast
    auto flat = Tensor<1>::from_data(host_uniform({3072}, 4), dev).reshape({64, 48});
    auto h = a.cast(DType::F16);  // 2-byte input
    auto i = (a * 10.0).int_();   // i32 output
    auto y = (a * b + row).exp() / (flat.abs() + 1.0) + h.cast(DType::F32);
    auto z = a.flip({1}) * 2.0 - flat;
    return {y.raw(), z.raw(), i.raw(), (i * 3 + 1).raw(), a.greater(b).raw()};
  });
}

TEST(Vectorized, ElementCountNotDivisibleByFour) {
  EMBER_REQUIRE_GPU_DEVICE();
  testing::expect_same_fused_and_unfused([](const Device& dev) -> std::vector<RawTensor> {
    auto a = Tensor<1>::from_data(host_uniform({2051}, 5), dev);
    return {(a * a + 1.0).raw(), a.sin().raw()};
  });
}

}  // namespace
}  // namespace ember
