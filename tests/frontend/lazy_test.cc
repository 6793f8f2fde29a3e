// The lazy stream: nothing runs until a sync point; errors leave the stream usable.
#include <gtest/gtest.h>

#include "frontend/detail/stream.h"
#include "tests/frontend/test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_tensor;

TEST(Lazy, OpsAreRecordedNotRun) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu);
  reset_stats(cpu);
  auto y = (x * 2.0 + 1.0).exp();
  EXPECT_FALSE(y.raw().is_materialized());
  EXPECT_EQ(stats(cpu).kernels_launched, 0);
  EXPECT_GT(stats(cpu).ops_recorded, 0);
  expect_tensor(y, Shape{3}, {std::exp(3.0), std::exp(5.0), std::exp(7.0)});
  EXPECT_TRUE(y.raw().is_materialized());
  EXPECT_GT(stats(cpu).kernels_launched, 0);
}

TEST(Lazy, SyncMaterializesLiveTensorsOnly) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 2.0}, cpu);
  auto kept = x + 1.0;
  { auto dropped = x * 5.0; }
  reset_stats(cpu);
  sync(cpu);
  EXPECT_TRUE(kept.raw().is_materialized());
  // x + 1 is one binary (plus its scalar constant); the dropped product never runs.
  EXPECT_EQ(stats(cpu).kernels_launched, 2);
}

// flush() starts what is recorded without waiting: nothing stays pending, the values read back
// right, and a backward recorded after it differentiates through the flushed forward.
TEST(Lazy, FlushStartsPendingWorkAndBackwardReadsTheFlushedForward) {
  Device cpu = Device::cpu();
  auto w = Tensor<1>::from_data({1.0, 2.0, 3.0}, cpu).require_grad();
  auto loss = (w * w * 2.0).sum();
  reset_stats(cpu);
  flush(cpu);
  EXPECT_EQ(detail::Stream::of(cpu).pending_ops(), 0);
  EXPECT_TRUE(loss.raw().is_materialized());
  EXPECT_EQ(stats(cpu).flushes, 1);
  Gradients g = loss.backward();
  expect_tensor(loss, Shape{1}, {28.0});
  expect_tensor(w.grad(g).value(), Shape{3}, {4.0, 8.0, 12.0});
}

TEST(Lazy, OpsShareTheNodeOfAnEqualScalar) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0, 2.0}, cpu);
  sync(cpu);
  auto& stream = detail::Stream::of(cpu);
  auto y = x * 3.0 + 3.0;  // input, one scalar node, mul, add
  EXPECT_EQ(stream.pending_ops(), 4);
  auto z = y * 2.0 - 0.0 + -0.0;  // 2, 0 and -0 (other bits): three more scalars
  EXPECT_EQ(stream.pending_ops(), 4 + 3 + 3);
  auto i = Tensor<1, Int>::from_ints({1, 2}, cpu) * 3;  // an int 3 is another constant
  EXPECT_EQ(stream.pending_ops(), 10 + 3);
  expect_tensor(y, Shape{2}, {6.0, 9.0});
  expect_tensor(z, Shape{2}, {12.0, 18.0});
  expect_tensor(i, Shape{2}, {3.0, 6.0});
}

TEST(Lazy, PendingLimitFlushes) {
  Device cpu = Device::cpu();
  auto x = Tensor<1>::from_data({1.0}, cpu);
  int limit = detail::max_pending_ops();
  for (int i = 0; i < limit; ++i) x = x + 1.0;
  EXPECT_LT(detail::Stream::of(cpu).pending_ops(), limit);
  expect_tensor(x, Shape{1}, {1.0 + limit});
}

TEST(Lazy, RecordingErrorLeavesStreamUsable) {
  Device cpu = Device::cpu();
  auto a = Tensor<2>::ones({2, 3}, cpu);
  auto b = a * 3.0;
  expect_error([&] { auto c = a.matmul(Tensor<2>::ones({2, 3}, cpu)); }, {"matmul", "[2, 3]"});
  expect_tensor(b, Shape{2, 3}, {3, 3, 3, 3, 3, 3});
}

TEST(Lazy, ExecutionErrorFailsOnlyDependents) {
  Device cpu = Device::cpu();
  auto x = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, cpu);
  auto bad = x.gather(1, Tensor<2, Int>::from_data({{0, 7}, {1, 0}}, cpu));
  auto dependent = bad + 1.0;
  auto fine = x * 10.0;
  expect_error([&] { dependent.to_data(); }, {"gather", "index 7", "size 2"});
  expect_error([&] { bad.to_data(); }, {"gather", "index 7"});
  expect_tensor(fine, Shape{2, 2}, {10, 20, 30, 40});
  expect_error([&] { auto z = bad * 2.0; }, {"gather"});
  expect_tensor(x + 1.0, Shape{2, 2}, {2, 3, 4, 5});
}

TEST(Lazy, CopiesShareTheValue) {
  auto x = Tensor<1>::from_data({1.0, 2.0}, Device::cpu());
  Tensor<1> y = x;
  EXPECT_EQ(x.raw().value(), y.raw().value());
}

TEST(Lazy, UnavailableDeviceThrows) {
  expect_error([] { Tensor<1>::zeros({2}, Device::cuda(0)); }, {"cuda:0", "not available"});
  expect_error([] { Device::parse("tpu"); }, {"unknown device"});
  EXPECT_EQ(Device::parse("vulkan:1"), Device::vulkan(1));
}

}  // namespace
}  // namespace ember
