// The order a CUDA graph keeps among a sequence's kernels (runtime/cuda/graph_order.h): each
// waits for the earlier kernels it conflicts with, and for nothing else.
#include "runtime/cuda/graph_order.h"

#include <gtest/gtest.h>

#include <random>

namespace ember::runtime::cuda {
namespace {

using Calls = std::vector<std::vector<BufferAccess>>;
using Deps = std::vector<std::vector<int>>;

BufferAccess reads(uint64_t address, uint64_t bytes = 256) { return {address, bytes, false}; }
BufferAccess writes(uint64_t address, uint64_t bytes = 256) { return {address, bytes, true}; }

TEST(GraphOrder, AChainWaitsForEachWriter) {
  // x -> y -> z: each kernel reads what the one before wrote.
  Calls calls{{writes(0)}, {reads(0), writes(256)}, {reads(256), writes(512)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}, {1}}));
}

TEST(GraphOrder, ReadersOfOneValueRunSideBySide) {
  // Two kernels read what the first wrote (an input and a weight gradient from one output
  // gradient): both wait for it, neither for the other.
  Calls calls{{writes(0)}, {reads(0), writes(256)}, {reads(0), writes(512)}, {reads(1024)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}, {0}, {}}));
}

TEST(GraphOrder, AWriteWaitsForTheReadersSinceTheLastWrite) {
  // Memory reused within a step: the allocation of a dead value is written again.
  Calls calls{
      {writes(0)}, {reads(0), writes(256)}, {reads(0), writes(512)}, {writes(0)}, {reads(0)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}, {0}, {0, 1, 2}, {3}}));
}

TEST(GraphOrder, WriteAfterWriteAndInPlaceUpdates) {
  // Call 1 updates x in place (reads and writes it); call 2 overwrites it.
  Calls calls{{writes(0)}, {reads(0), writes(0)}, {writes(0)}, {reads(0)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}, {1}, {2}}));
}

TEST(GraphOrder, AdjacentRangesDoNotConflictOverlappingOnesDo) {
  // [0, 256) and [256, 512) are disjoint; [128, 384) overlaps both. Ranges that overlap without
  // being the same allocation are ordered even when both only read.
  Calls calls{{writes(0)}, {writes(256)}, {reads(128)}, {reads(0)}, {writes(256)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {}, {0, 1}, {0, 2}, {1, 2}}));
}

TEST(GraphOrder, ALongRangeBeforeShortOnesIsStillFound) {
  // Ranges inside a longer one (memory handed out again at other bases, which Ember's
  // allocator does not do while a sequence holds it, but the order must not depend on that).
  // A range starting far below another still overlaps it when long enough.
  Calls calls{{writes(0, 1 << 20)}, {writes(4096)}, {reads(8192)}, {reads(2 << 20)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}, {0}, {}}));
}

TEST(GraphOrder, RangesOneCallNamesOverlappingAreFoundLater) {
  // Call 0 writes [0, 512) and reads [256, 512) inside it; call 1 reads [256, 512): its own
  // range's state has no writer, yet it must wait for call 0's write of the range around it.
  Calls calls{{writes(0, 512), reads(256)}, {reads(256)}};
  EXPECT_EQ(graph_dependencies(calls), (Deps{{}, {0}}));
}

// Random sequences against the definition: i must run before j (i < j) exactly when their
// accesses overlap and one writes, or overlap as different ranges. Every such pair must be
// ordered through the listed waits (their transitive closure), and every listed wait must be
// such a pair.
TEST(GraphOrder, RandomSequencesOrderEveryConflictAndNothingElse) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 1000; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 40);
    Calls calls(static_cast<size_t>(n));
    // Eight allocations of 128 B to 8 KiB, apart; in half the trials a call sometimes names a
    // range straddling two of them (memory handed out again at another base).
    std::vector<std::pair<uint64_t, uint64_t>> allocations;
    uint64_t next = 0;
    for (int a = 0; a < 8; ++a) {
      const uint64_t bytes = uint64_t{128} << (rng() % 7);
      allocations.push_back({next, bytes});
      next += bytes;
    }
    const bool straddling = trial % 2 == 1;
    for (auto& c : calls) {
      const int bindings = 1 + static_cast<int>(rng() % 4);
      for (int b = 0; b < bindings; ++b) {
        auto [address, bytes] = allocations[rng() % allocations.size()];
        if (straddling && rng() % 10 == 0) address += bytes / 2;
        c.push_back({address, bytes, rng() % 3 == 0});
      }
    }
    auto conflict = [&](int i, int j) {
      for (const BufferAccess& a : calls[static_cast<size_t>(i)]) {
        for (const BufferAccess& b : calls[static_cast<size_t>(j)]) {
          const bool overlap = a.address < b.address + b.bytes && b.address < a.address + a.bytes;
          const bool same = a.address == b.address && a.bytes == b.bytes;
          if (overlap && (a.writes || b.writes || !same)) return true;
        }
      }
      return false;
    };
    const Deps deps = graph_dependencies(calls);
    ASSERT_EQ(deps.size(), calls.size());
    // before[j][i]: i is ordered before j through the waits.
    std::vector<std::vector<char>> before(static_cast<size_t>(n), std::vector<char>(n, 0));
    for (int j = 0; j < n; ++j) {
      for (int i : deps[static_cast<size_t>(j)]) {
        ASSERT_LT(i, j);
        EXPECT_TRUE(conflict(i, j)) << "trial " << trial << ": " << j << " waits for " << i;
        before[j][i] = 1;
        for (int k = 0; k < i; ++k) before[j][k] |= before[i][k];
      }
      for (int i = 0; i < j; ++i) {
        if (conflict(i, j)) {
          EXPECT_TRUE(before[j][i]) << "trial " << trial << ": " << j << " after " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::runtime::cuda
