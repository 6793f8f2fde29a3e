#include "ir/shape.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/error.h"

namespace ember {

int64_t Shape::numel() const {
  // Saturates instead of wrapping (undefined): a count past int64 reads as INT64_MAX, which no
  // real tensor has, and Builder::add rejects such shapes when an op records them.
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

std::vector<int64_t> Shape::contiguous_strides() const {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (int i = rank() - 1; i >= 0; --i) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

std::string Shape::to_string() const { return absl::StrCat("[", absl::StrJoin(dims, ", "), "]"); }

std::string TensorType::to_string() const {
  return absl::StrCat(dtype_name(dtype), shape.to_string());
}

int normalize_dim(int64_t dim, int rank, const char* op) {
  int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank) {
    throw Error(absl::StrCat(op, ": dim ", dim, " out of range for rank ", rank));
  }
  return static_cast<int>(d);
}

std::vector<ReshapeGroup> reshape_groups(const Shape& out, const Shape& in) {
  std::vector<ReshapeGroup> groups;
  if (out.numel() == 0 || in.numel() == 0) return groups;
  std::vector<int> outs, ins;  // the dims of more than one element
  for (int d = 0; d < out.rank(); ++d) {
    if (out[d] != 1) outs.push_back(d);
  }
  for (int d = 0; d < in.rank(); ++d) {
    if (in[d] != 1) ins.push_back(d);
  }
  size_t a = 0, b = 0;
  while (a < outs.size() && b < ins.size()) {
    ReshapeGroup g{{outs[a++]}, {ins[b++]}};
    int64_t out_size = out[g.out[0]], in_size = in[g.in[0]];
    while (out_size != in_size) {  // equal element counts: both sides meet
      if (out_size < in_size) {
        g.out.push_back(outs[a]);
        out_size *= out[outs[a++]];
      } else {
        g.in.push_back(ins[b]);
        in_size *= in[ins[b++]];
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace ember
