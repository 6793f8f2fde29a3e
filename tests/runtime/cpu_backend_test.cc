// The CPU reference backend on its own: layouts, strided loops, primitives on views.
#include <gtest/gtest.h>

#include <numeric>

#include "ir/error.h"
#include "ir/philox.h"
#include "runtime/backend.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime {
namespace {

Array upload_f32(const std::vector<float>& v, Shape s) {
  return cpu_backend().upload({DType::F32, std::move(s)}, v.data());
}

std::vector<float> download_f32(const Array& a) {
  std::vector<float> out(static_cast<size_t>(a.type.shape.numel()));
  cpu_backend().download(a, out.data());
  return out;
}

TEST(Philox, KnownAnswers) {
  // Test vectors of the Random123 reference implementation (kat_vectors, philox4x32 10 rounds).
  auto zero = ir::philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(zero, (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  auto ones =
      ir::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff});
  EXPECT_EQ(ones, (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  auto pi =
      ir::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0});
  EXPECT_EQ(pi, (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Strided, CoalescesContiguousDims) {
  Shape s{2, 3, 4};
  auto st = s.contiguous_strides();
  auto l = cpu::coalesce<1>(s, {st.data()});
  EXPECT_EQ(l.sizes, std::vector<int64_t>{24});
  int rows = 0;
  cpu::for_each_row<1>(s, {st.data()}, [&](auto, int64_t n, auto) {
    ++rows;
    EXPECT_EQ(n, 24);
  });
  EXPECT_EQ(rows, 1);
}

TEST(Strided, VisitsTransposedLayoutInOrder) {
  // A [3, 2] view of a row-major [2, 3] buffer (transpose): offsets in output order.
  Shape s{3, 2};
  std::vector<int64_t> strides{1, 3};
  std::vector<int64_t> seen;
  cpu::for_each_row<1>(s, {strides.data()}, [&](auto off, int64_t n, auto st) {
    for (int64_t i = 0; i < n; ++i) seen.push_back(off[0] + i * st[0]);
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(CpuBackend, ViewsShareBuffersAndDownloadInLogicalOrder) {
  Array a = upload_f32({0, 1, 2, 3, 4, 5}, {2, 3});
  Array t = cpu::view_permute(a, {1, 0});
  EXPECT_EQ(t.buffer, a.buffer);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(download_f32(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Array f = cpu::view_flip(a, {1});
  EXPECT_EQ(download_f32(f), (std::vector<float>{2, 1, 0, 5, 4, 3}));
  Array s = cpu::view_slice(a, {{0, 1}, {1, 2}}, {2, 1});
  EXPECT_EQ(download_f32(s), (std::vector<float>{1, 4}));
}

TEST(CpuBackend, ReshapeOfTransposeCopiesOnlyWhenNeeded) {
  Array a = upload_f32({0, 1, 2, 3, 4, 5}, {2, 3});
  Array r = cpu::view_reshape(a, {3, 2});
  EXPECT_EQ(r.buffer, a.buffer);
  Array t = cpu::view_permute(a, {1, 0});
  Array rt = cpu::view_reshape(t, {6});
  EXPECT_NE(rt.buffer, a.buffer);
  EXPECT_EQ(download_f32(rt), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // Splitting a dim of a transposed view needs no copy.
  Array b = upload_f32(std::vector<float>(24, 1.0f), {4, 6});
  Array split = cpu::view_reshape(cpu::view_permute(b, {1, 0}), {2, 3, 4});
  EXPECT_EQ(split.buffer, b.buffer);
}

TEST(CpuBackend, MatmulReadsTransposedOperandsInPlace) {
  Array a = upload_f32({1, 2, 3, 4, 5, 6}, {2, 3});                              // A
  Array at = cpu::view_permute(upload_f32({1, 4, 2, 5, 3, 6}, {3, 2}), {1, 0});  // also A
  Array b = upload_f32({1, 0, 0, 1, 1, 1}, {3, 2});
  TensorType out{DType::F32, {2, 2}};
  std::vector<float> expected{4, 5, 10, 11};
  EXPECT_EQ(download_f32(cpu::run_matmul(a, b, out)), expected);
  EXPECT_EQ(download_f32(cpu::run_matmul(at, b, out)), expected);
}

TEST(CpuBackend, GatherChecksIndices) {
  Array x = upload_f32({1, 2, 3}, {3});
  std::vector<int32_t> idx{2, 3};
  Array i = cpu_backend().upload({DType::I32, {2}}, idx.data());
  EXPECT_THROW(cpu::run_gather(x, 0, i, {DType::F32, {2}}), Error);
}

TEST(CpuBackend, MemoryStatsTrackLiveBuffers) {
  int64_t before = cpu_backend().memory_stats().bytes_in_use;
  {
    Array a = upload_f32(std::vector<float>(256, 0.f), {256});
    EXPECT_EQ(cpu_backend().memory_stats().bytes_in_use, before + 1024);
    EXPECT_GE(cpu_backend().memory_stats().peak_bytes, before + 1024);
  }
  EXPECT_EQ(cpu_backend().memory_stats().bytes_in_use, before);
}

// A freed buffer of 64 KiB or more waits for the next request of its size (a training step
// allocating what the last one freed reuses its pages); smaller ones and other sizes do not take
// it, and a kept buffer is not counted in use.
TEST(CpuBackend, FreedBigBuffersAreReusedForTheirSize) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer builds give freed buffers back to it";
#endif
  const TensorType big{DType::F32, {1000, 300}};  // 1.2 MB
  cpu::cpu_release_kept();  // blocks earlier tests (or an earlier repetition) left
  const int64_t before = cpu_backend().memory_stats().bytes_in_use;
  const size_t kept_before = cpu::cpu_kept_bytes();
  EXPECT_EQ(kept_before, 0u);
  const std::byte* first = nullptr;
  {
    Array a = cpu::allocate(big);
    first = cpu::raw_ptr(a);
  }
  EXPECT_EQ(cpu::cpu_kept_bytes(), kept_before + 1200000);
  EXPECT_EQ(cpu_backend().memory_stats().bytes_in_use, before);
  {
    Array other = cpu::allocate({DType::F32, {1000, 301}});
    EXPECT_NE(cpu::raw_ptr(other), first) << "another size does not take the kept block";
    Array again = cpu::allocate(big);
    EXPECT_EQ(cpu::raw_ptr(again), first);
    EXPECT_EQ(cpu::cpu_kept_bytes(), kept_before);
    EXPECT_EQ(cpu_backend().memory_stats().bytes_in_use, before + 1200000 + 1204000);
  }
  const size_t kept_after = cpu::cpu_kept_bytes();
  { Array small = cpu::allocate({DType::F32, {1000}}); }
  EXPECT_EQ(cpu::cpu_kept_bytes(), kept_after) << "4 KB buffers go back to malloc";
  cpu::cpu_release_kept();
  EXPECT_EQ(cpu::cpu_kept_bytes(), 0u);
}

// Freed blocks that would pass the 256 MiB limit give back every kept one first: memory of
// sizes no longer asked for is not held for good.
TEST(CpuBackend, KeptBuffersPastTheLimitReleaseTheOlderOnes) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer builds give freed buffers back to it";
#endif
  cpu::cpu_release_kept();
  { Array a = cpu::allocate({DType::F32, {40, 1000, 1000}}); }  // 160 MB
  EXPECT_EQ(cpu::cpu_kept_bytes(), 160000000u);
  { Array b = cpu::allocate({DType::F32, {30, 1000, 1000}}); }  // 120 MB: past 256 MiB together
  EXPECT_EQ(cpu::cpu_kept_bytes(), 120000000u);
  cpu::cpu_release_kept();
}

}  // namespace
}  // namespace ember::runtime
