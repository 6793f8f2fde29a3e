#pragma once
// The order a CUDA graph keeps among a sequence's kernels. A stream runs them one after the
// other; a graph need only keep each kernel after the earlier ones whose memory it conflicts
// with (one of the two writes what the other touches). Independent kernels then run side by
// side: a weight gradient beside the input gradient, a statistic's reduction beside the main
// chain, the last wave of one kernel beside the first of the next.
#include <cstdint>
#include <vector>

namespace ember::runtime::cuda {

// A call's use of one allocation: the device range [address, address + bytes), and whether
// the call writes it.
struct BufferAccess {
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool writes = false;
};

// Per call, the earlier calls it must wait for (ascending). Two accesses conflict when their
// ranges overlap and one of them writes. Only the nearest conflicts are listed: a read waits
// for the range's latest writer, a write for it and the range's readers since; older calls are
// ordered before those already. Distinct allocations do not overlap while both are alive, but
// ranges that do (memory the driver handed out again) are ordered whatever the access.
std::vector<std::vector<int>> graph_dependencies(
    const std::vector<std::vector<BufferAccess>>& calls);

}  // namespace ember::runtime::cuda
