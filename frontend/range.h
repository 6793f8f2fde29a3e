#pragma once
// A slice range along one dim: [start, end) with a step. Negative start/end count from the end
// of the dim. A negative step walks the same range backwards, from its last element.
#include <cstdint>
#include <optional>

namespace ember {

struct Range {
  int64_t start = 0;
  std::optional<int64_t> end;  // nullopt: to the end of the dim
  int64_t step = 1;

  Range() = default;
  Range(int64_t start, int64_t end, int64_t step = 1) : start(start), end(end), step(step) {}
  static Range all() { return {}; }
  static Range from(int64_t start) {
    Range r;
    r.start = start;
    return r;
  }
  static Range to(int64_t end) { return Range(0, end); }
  // The single index i, keeping the dim (size 1).
  static Range at(int64_t i) { return i == -1 ? from(-1) : Range(i, i + 1); }
  Range with_step(int64_t s) const {
    Range r = *this;
    r.step = s;
    return r;
  }
};

}  // namespace ember
