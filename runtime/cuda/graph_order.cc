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

// The ranges seen so far, by start (then by end). While no two of them overlap (distinct live
// allocations never do), the ranges overlapping a new one are the last to start at or below it
// and those starting inside it: a lookup is logarithmic. Once two overlap (memory handed out
// again at another base), every range starting within the longest length below is looked at.
class Ranges {
 public:
  template <class F>
  void for_overlapping(uint64_t lo, uint64_t hi, F&& f) {
    auto it = map_.upper_bound(lo);
    if (overlapping_) {
      it = map_.lower_bound(lo > longest_ ? lo - longest_ : 0);
    } else if (it != map_.begin()) {
      --it;
    }
    for (; it != map_.end() && it->first < hi; ++it) {
      for (RangeState& s : it->second) {
        if (s.end <= lo) continue;
        if (it->first != lo || s.end != hi) overlapping_ = true;  // a range not the same
        f(it->first, s);
      }
    }
  }

  RangeState& state_of(uint64_t lo, uint64_t hi) {
    longest_ = std::max(longest_, hi - lo);
    auto [it, fresh] = map_.try_emplace(lo);
    for (RangeState& s : it->second) {
      if (s.end == hi) return s;
    }
    // A new range: it overlaps another (one call may name both) if it shares its start, or
    // the range before it reaches past its start, or the next one starts inside it.
    if (!fresh) overlapping_ = true;
    if (it != map_.begin()) {
      auto before = std::prev(it);
      for (const RangeState& s : before->second) overlapping_ |= s.end > lo;
    }
    if (auto after = std::next(it); after != map_.end()) overlapping_ |= after->first < hi;
    it->second.push_back({hi, -1, {}});
    return it->second.back();
  }

 private:
  std::map<uint64_t, std::vector<RangeState>> map_;
  uint64_t longest_ = 0;
  bool overlapping_ = false;
};

}  // namespace

std::vector<std::vector<int>> graph_dependencies(
    const std::vector<std::vector<BufferAccess>>& calls) {
  std::vector<std::vector<int>> deps(calls.size());
  Ranges ranges;
  for (size_t i = 0; i < calls.size(); ++i) {
    std::vector<int>& d = deps[i];
    const int self = static_cast<int>(i);
    for (const BufferAccess& a : calls[i]) {
      const uint64_t hi = a.address + a.bytes;
      ranges.for_overlapping(a.address, hi, [&](uint64_t start, const RangeState& s) {
        const bool same = start == a.address && s.end == hi;
        if (s.writer >= 0) d.push_back(s.writer);
        if (a.writes || !same) d.insert(d.end(), s.readers.begin(), s.readers.end());
      });
    }
    // The call's own uses, writes first: a call that reads and writes a range is its writer.
    for (const BufferAccess& a : calls[i]) {
      if (!a.writes) continue;
      RangeState& s = ranges.state_of(a.address, a.address + a.bytes);
      s.writer = self;
      s.readers.clear();
    }
    for (const BufferAccess& a : calls[i]) {
      if (a.writes) continue;
      RangeState& s = ranges.state_of(a.address, a.address + a.bytes);
      if (s.writer != self && (s.readers.empty() || s.readers.back() != self))
        s.readers.push_back(self);
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    d.erase(std::remove(d.begin(), d.end(), self), d.end());
  }
  return deps;
}

}  // namespace ember::runtime::cuda
