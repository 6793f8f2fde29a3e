// Kernels never bind more tensors than the device allows (lavapipe: 32 storage buffers per
// stage): fusion of many stored values, and of a wide concatenation, splits where it must. The
// programs are training-shaped (many parameters updated in one flush, the global norm over all
// gradients) and compared with the CPU.
#include <gtest/gtest.h>

#include "frontend/stats.h"
#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

using testing::expect_same_fused_and_unfused;
using testing::gpu_device;
using testing::host_uniform;

// 40 stored inputs added into one value, and 24 same-shaped updates of 24 stored pairs: each
// would fuse into one kernel of 41 and 72 bindings.
std::vector<RawTensor> many_operands(const Device& dev) {
  std::vector<Tensor<2>> xs;
  for (uint32_t i = 0; i < 40; ++i)
    xs.push_back(Tensor<2>::from_data(host_uniform({3, 5}, i), dev));
  Tensor<2> sum = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) sum = sum + xs[i] * static_cast<double>(i);
  std::vector<RawTensor> out{sum.raw()};
  for (size_t i = 0; i + 1 < 2 * 24 && i + 1 < xs.size(); i += 2) {
    out.push_back((xs[i] - xs[i + 1] * 0.1).raw());
  }
  return out;
}

TEST(Bindings, ManyStoredOperandsFuseWithinTheLimit) {
  EMBER_REQUIRE_GPU_DEVICE();
  expect_same_fused_and_unfused(many_operands);
}

// The norm of 62 gradients of different lengths joined by one concatenation, as
// optim::clip_grad_norm computes it.
std::vector<RawTensor> wide_concat(const Device& dev) {
  std::vector<RawTensor> flat;
  for (uint32_t i = 0; i < 62; ++i) {
    int64_t n = 1 + (i * 7) % 23;
    flat.push_back(Tensor<1>::from_data(host_uniform({n}, 100 + i), dev).raw());
  }
  Tensor<1> all(ops::cat(flat, 0), "test");
  return {(all * all).sum().raw(), all.raw()};
}

TEST(Bindings, WideConcatenationSplitsIntoBindableKernels) {
  EMBER_REQUIRE_GPU_DEVICE();
  expect_same_fused_and_unfused(wide_concat);
}

}  // namespace
}  // namespace ember
