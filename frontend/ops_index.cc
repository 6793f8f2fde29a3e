// Sorting, gather/scatter/select, matmul and the data-dependent ops.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"
#include "frontend/ops.h"
#include "ir/builder.h"

namespace ember::ops {

TensorPair sort_with_indices(const RawTensor& x, int64_t dim, bool descending) {
  ir::OpScope scope("sort");
  int d = normalize_dim(dim, x.rank(), "sort");
  return {prim::sort(x, d, descending, false), prim::sort(x, d, descending, true)};
}

TensorPair topk_with_indices(const RawTensor& x, int64_t k, int64_t dim) {
  ir::OpScope scope("topk");
  int d = normalize_dim(dim, x.rank(), "topk");
  if (k < 0 || k > x.shape()[d]) {
    throw Error(
        absl::StrCat("topk: k=", k, " out of range for dim ", dim, " of ", x.shape().to_string()));
  }
  auto [values, indices] = sort_with_indices(x, d, true);
  return {narrow(values, d, 0, k), narrow(indices, d, 0, k)};
}

RawTensor gather(const RawTensor& x, int64_t dim, const RawTensor& index) {
  ir::OpScope scope("gather");
  return prim::gather(x, normalize_dim(dim, x.rank(), "gather"), index);
}

RawTensor scatter(const RawTensor& x, int64_t dim, const RawTensor& index,
                  const RawTensor& values) {
  ir::OpScope scope("scatter");
  return prim::scatter_add(x, normalize_dim(dim, x.rank(), "scatter"), index, values);
}

// A 1-D index viewed along `d` and expanded to `shape`, the form gather/scatter take.
static RawTensor index_along(const RawTensor& index, int d, const Shape& shape, const char* op) {
  if (index.rank() != 1 || !is_int(index.dtype())) {
    throw Error(
        absl::StrCat(op, ": index must be a 1-D int tensor, got ", index.type().to_string()));
  }
  Shape view(std::vector<int64_t>(shape.rank(), 1));
  view[d] = index.shape()[0];
  return prim::expand(prim::reshape(index, view), shape);
}

RawTensor select(const RawTensor& x, int64_t dim, const RawTensor& index) {
  ir::OpScope scope("select");
  int d = normalize_dim(dim, x.rank(), "select");
  Shape out = x.shape();
  out[d] = index.shape().rank() == 1 ? index.shape()[0] : 0;
  return prim::gather(x, d, index_along(index, d, out, "select"));
}

RawTensor select_assign(const RawTensor& x, int64_t dim, const RawTensor& index,
                        const RawTensor& values) {
  ir::OpScope scope("select_assign");
  int d = normalize_dim(dim, x.rank(), "select_assign");
  return prim::scatter_add(x, d, index_along(index, d, values.shape(), "select_assign"), values);
}

RawTensor matmul(const RawTensor& a, const RawTensor& b) {
  ir::OpScope scope("matmul");
  if (a.rank() < 2 || b.rank() < 2) {
    // Vectors are treated as a row (lhs) or a column (rhs), then the added dim is dropped.
    RawTensor a2 = a.rank() == 1 ? unsqueeze_dim(a, 0) : a;
    RawTensor b2 = b.rank() == 1 ? unsqueeze_dim(b, -1) : b;
    if (a2.rank() != b2.rank()) {
      throw Error(absl::StrCat("matmul: ranks differ: ", a.type().to_string(), " and ",
                               b.type().to_string()));
    }
    RawTensor y = prim::matmul(a2, b2);
    if (a.rank() == 1) y = squeeze(y, -2);
    if (b.rank() == 1) y = squeeze(y, -1);
    return y;
  }
  return prim::matmul(a, b);
}

RawTensor argwhere(const RawTensor& x) {
  TensorData data = x.to_data().convert(DType::Bool);
  const Shape& s = x.shape();
  auto strides = s.contiguous_strides();
  std::vector<int32_t> coords;
  int64_t count = 0;
  const auto& bytes = data.bytes();
  for (int64_t i = 0; i < s.numel(); ++i) {
    if (bytes[i] == std::byte(0)) continue;
    ++count;
    for (int d = 0; d < s.rank(); ++d)
      coords.push_back(static_cast<int32_t>(i / strides[d] % s[d]));
  }
  return prim::from_data(TensorData(coords, Shape{count, s.rank()}), x.device());
}

std::vector<RawTensor> nonzero(const RawTensor& x) {
  RawTensor coords = argwhere(x);
  std::vector<RawTensor> out;
  for (int d = 0; d < x.rank(); ++d) {
    out.push_back(squeeze(slice_dim(coords, 1, Range(d, d + 1)), 1));
  }
  return out;
}

}  // namespace ember::ops
