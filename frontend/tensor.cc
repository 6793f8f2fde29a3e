#include "frontend/tensor.h"

#include "absl/strings/str_cat.h"
#include "frontend/detail/primitives.h"

namespace ember::detail {

void throw_ragged(int depth, int64_t expected, int64_t got) {
  throw Error(absl::StrCat("from_data: ragged nested list: ", got, " elements at depth ", depth,
                           " where a sibling has ", expected));
}

void throw_wrong_rank(int expected, const Shape& got, const char* where) {
  throw Error(absl::StrCat(where, ": wrong rank for the target Tensor<", expected, ">: got shape ",
                           got.to_string()));
}

void throw_wrong_kind(const char* kind, DType got, const char* where) {
  throw Error(absl::StrCat(where, ": dtype ", dtype_name(got), " is not of kind ", kind));
}

void throw_not_scalar(const Shape& s) {
  throw Error(absl::StrCat("into_scalar: tensor of shape ", s.to_string(),
                           " does not hold exactly one element"));
}

RawTensor raw_from_data(const TensorData& d, const Device& dev) { return prim::from_data(d, dev); }

RawTensor raw_from_bytes(std::span<const std::byte> bytes, DType dtype, const Shape& shape,
                         const Device& dev) {
  const auto want = static_cast<uint64_t>(shape.numel()) * dtype_size(dtype);
  if (bytes.size() != want) {
    throw Error(absl::StrCat("from_bytes: ", bytes.size(), " bytes for ", dtype_name(dtype), " ",
                             shape.to_string(), ", which takes ", want));
  }
  return prim::from_bytes(bytes.data(), dtype, shape, dev);
}

}  // namespace ember::detail
