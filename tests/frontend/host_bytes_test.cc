// Tensor::host_bytes: the elements in place on the CPU device (what a checkpoint writes without
// a copy), nothing on devices whose memory is not the host's.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/frontend/test_util.h"

namespace ember {
namespace {

std::vector<float> floats(std::span<const std::byte> b) {
  std::vector<float> v(b.size() / sizeof(float));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

TEST(HostBytes, ComputedCpuTensorsAreReadInPlace) {
  for (const char* name : {"cpu", "cpu-ref"}) {
    SCOPED_TRACE(name);
    const Device dev = Device::parse(name);
    auto x = Tensor<2>::from_data({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, dev);
    auto y = x * 2.0 + 1.0;  // pending: host_bytes runs it
    auto bytes = y.host_bytes();
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(floats(*bytes), (std::vector<float>{3, 5, 7, 9, 11, 13}));
    // A view in another order is the transposed elements or no view at all, never the
    // untransposed ones.
    auto t = y.transpose();
    if (auto tb = t.host_bytes()) EXPECT_EQ(floats(*tb), (std::vector<float>{3, 9, 5, 11, 7, 13}));
    // The same bytes as a copy.
    EXPECT_EQ(floats(std::span(y.to_data().bytes())), floats(*bytes));
  }
}

TEST(HostBytes, NoneOnVulkan) {
  const Device dev = Device::parse("vulkan:0");
  if (!dev.is_available()) GTEST_SKIP() << "no Vulkan device";
  auto x = Tensor<1>::from_data({1.0, 2.0}, dev) + 1.0;
  EXPECT_FALSE(x.host_bytes().has_value());
}

}  // namespace
}  // namespace ember
