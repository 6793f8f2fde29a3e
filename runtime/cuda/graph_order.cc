#include "runtime/cuda/graph_order.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace ember::runtime::cuda {
namespace {

// What the calls so far did to one range: its latest writer and the readers since.
struct RangeState {
  uint64_t end = 0;
  int writer = -1;
  std::vector<int> readers;
};

using Ranges = std::map<uint64_t, std::vector<RangeState>>;  // by start, then by end

// The states of ranges overlapping [lo, hi), given that none is longer than `longest`.
template <class F>
void for_overlapping(Ranges& ranges, uint64_t lo, uint64_t hi, uint64_t longest, F&& f) {
  auto it = ranges.lower_bound(lo > longest ? lo - longest : 0);
  for (; it != ranges.end() && it->first < hi; ++it) {
    for (RangeState& s : it->second) {
      if (s.end > lo) f(it->first, s);
    }
  }
}

RangeState& state_of(Ranges& ranges, const BufferAccess& a) {
  std::vector<RangeState>& list = ranges[a.address];
  for (RangeState& s : list) {
    if (s.end == a.address + a.bytes) return s;
  }
  list.push_back({a.address + a.bytes, -1, {}});
  return list.back();
}

}  // namespace

std::vector<std::vector<int>> graph_dependencies(
    const std::vector<std::vector<BufferAccess>>& calls) {
  std::vector<std::vector<int>> deps(calls.size());
  Ranges ranges;
  uint64_t longest = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    std::vector<int>& d = deps[i];
    for (const BufferAccess& a : calls[i]) {
      const uint64_t hi = a.address + a.bytes;
      for_overlapping(ranges, a.address, hi, longest, [&](uint64_t start, const RangeState& s) {
        const bool same = start == a.address && s.end == hi;
        if (s.writer >= 0) d.push_back(s.writer);
        if (a.writes || !same) d.insert(d.end(), s.readers.begin(), s.readers.end());
      });
    }
    // The call's own uses, writes first: a call that reads and writes a range is its writer.
    for (const BufferAccess& a : calls[i]) {
      longest = std::max(longest, a.bytes);
      if (!a.writes) continue;
      RangeState& s = state_of(ranges, a);
      s.writer = static_cast<int>(i);
      s.readers.clear();
    }
    for (const BufferAccess& a : calls[i]) {
      RangeState& s = state_of(ranges, a);
      if (!a.writes && s.writer != static_cast<int>(i)) s.readers.push_back(static_cast<int>(i));
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    d.erase(std::remove(d.begin(), d.end(), static_cast<int>(i)), d.end());
  }
  return deps;
}

}  // namespace ember::runtime::cuda
