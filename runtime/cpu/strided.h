#pragma once
// The CPU backend's loop engine: walks N strided operands over one shape, merging dims that are
// contiguous in every operand so the innermost loop is as long as possible.
#include <array>
#include <cstdint>
#include <vector>

#include "ir/shape.h"

namespace ember::runtime::cpu {

template <int N>
struct StridedLayout {
  std::vector<int64_t> sizes;                   // coalesced shape
  std::array<std::vector<int64_t>, N> strides;  // per operand, per coalesced dim
};

template <int N>
StridedLayout<N> coalesce(const Shape& shape, const std::array<const int64_t*, N>& strides) {
  StridedLayout<N> out;
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !out.sizes.empty();
    for (int k = 0; merge && k < N; ++k) {
      merge = out.strides[k].back() == strides[k][d] * shape[d];
    }
    if (merge) {
      out.sizes.back() *= shape[d];
      for (int k = 0; k < N; ++k) out.strides[k].back() = strides[k][d];
    } else {
      out.sizes.push_back(shape[d]);
      for (int k = 0; k < N; ++k) out.strides[k].push_back(strides[k][d]);
    }
  }
  return out;
}

// Calls row(offsets, length, inner_strides) once per innermost row. Offsets are in elements,
// relative to each operand's base. Nothing is called when the shape has no elements.
template <int N, class Row>
void for_each_row(const Shape& shape, const std::array<const int64_t*, N>& strides, Row&& row) {
  if (shape.numel() == 0) return;
  StridedLayout<N> l = coalesce<N>(shape, strides);
  std::array<int64_t, N> inner{};
  int64_t len = 1;
  if (!l.sizes.empty()) {
    len = l.sizes.back();
    for (int k = 0; k < N; ++k) inner[k] = l.strides[k].back();
  }
  int outer_rank = static_cast<int>(l.sizes.size()) - 1;
  std::vector<int64_t> idx(outer_rank > 0 ? outer_rank : 0, 0);
  std::array<int64_t, N> off{};
  while (true) {
    row(off, len, inner);
    int d = outer_rank - 1;
    for (; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += l.strides[k][d];
      if (++idx[d] < l.sizes[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= l.strides[k][d] * l.sizes[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Strides of an operand of shape `in` read broadcast into `out` (size-1 dims get stride 0).
inline std::vector<int64_t> broadcast_strides(const Shape& in, const std::vector<int64_t>& strides,
                                              const Shape& out) {
  std::vector<int64_t> s(out.rank());
  for (int d = 0; d < out.rank(); ++d) s[d] = (in[d] == 1 && out[d] != 1) ? 0 : strides[d];
  return s;
}

}  // namespace ember::runtime::cpu
