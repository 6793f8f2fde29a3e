#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace ember {

// A runtime shape: the size of each dimension. Rank 0 is allowed inside the IR (a scalar);
// frontend tensors have rank >= 1.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims.size()); }
  int64_t numel() const;
  int64_t operator[](int i) const { return dims[i]; }
  int64_t& operator[](int i) { return dims[i]; }
  bool operator==(const Shape& o) const { return dims == o.dims; }
  bool operator!=(const Shape& o) const { return dims != o.dims; }
  // Row-major strides of a contiguous tensor of this shape, in elements.
  std::vector<int64_t> contiguous_strides() const;
  std::string to_string() const;  // "[2, 3]"

  std::vector<int64_t> dims;
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

}  // namespace ember
