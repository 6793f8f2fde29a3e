#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "ir/dtype.h"

namespace ember {

// A runtime shape: the size of each dimension. Rank 0 is allowed inside the IR (a scalar);
// frontend tensors have rank >= 1.
class Shape {
 public:
  // Dimensions are stored inline up to rank 6: recording an op copies shapes several times,
  // and a heap allocation per copy was most of an eager step's host time.
  using Dims = absl::InlinedVector<int64_t, 6>;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims(dims) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims(dims.begin(), dims.end()) {}
  explicit Shape(Dims dims) : dims(std::move(dims)) {}
  // [1, 1, ...]: the shape of a scalar operand broadcast against a tensor of that rank.
  static Shape ones(int rank) {
    Shape s;
    s.dims.assign(static_cast<size_t>(rank), 1);
    return s;
  }
  // The dimensions as a std::vector (for APIs that take one).
  std::vector<int64_t> vector() const { return {dims.begin(), dims.end()}; }

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t numel() const;
  int64_t operator[](int i) const { return dims[i]; }
  int64_t& operator[](int i) { return dims[i]; }
  // An inline loop: shapes are short, and a memcmp call per comparison cost more than it.
  bool operator==(const Shape& o) const {
    if (dims.size() != o.dims.size()) return false;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != o.dims[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  // Row-major strides of a contiguous tensor of this shape, in elements.
  std::vector<int64_t> contiguous_strides() const;
  std::string to_string() const;  // "[2, 3]"

  Dims dims;
};

// The static type of an IR value.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  std::string to_string() const;  // "f32[2, 3]"
};

// Normalises a possibly negative dim against rank; throws ember::Error naming `op` when out of
// range.
int normalize_dim(int64_t dim, int rank, const char* op);

// A reshape's dims grouped where their sizes multiply to the same extent on both sides, dims of
// size 1 left out: per group, its output dims and its input dims. The code generator maps a
// reshape's index group by group, so the grouping is part of a graph's structure (ir/hash.cc).
// Empty when either shape has no elements.
struct ReshapeGroup {
  std::vector<int> out, in;
};
std::vector<ReshapeGroup> reshape_groups(const Shape& out, const Shape& in);

}  // namespace ember
