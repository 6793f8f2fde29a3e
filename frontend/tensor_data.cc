#include "frontend/tensor_data.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/host_convert.h"

namespace ember {

Tolerance Tolerance::default_for(DType t) {
  if (t == DType::F16) return {1e-3, 1e-3};
  if (t == DType::BF16) return {1e-2, 1e-2};
  if (t == DType::F64) return {1e-7, 1e-10};
  return {};
}

TensorData::TensorData(DType dtype, Shape shape)
    : dtype_(dtype),
      shape_(std::move(shape)),
      bytes_(static_cast<size_t>(shape_.numel()) * dtype_size(dtype)) {
  for (int64_t d : shape_.dims) {
    if (d < 0) throw Error("TensorData: negative size in shape " + shape_.to_string());
  }
}

TensorData::TensorData(DType dtype, Shape shape, std::vector<std::byte> bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::move(bytes)) {
  size_t expected = static_cast<size_t>(shape_.numel()) * dtype_size(dtype);
  if (bytes_.size() != expected) {
    throw Error(absl::StrCat("TensorData: ", bytes_.size(), " bytes given for ", dtype_name(dtype),
                             shape_.to_string(), " (", expected, " expected)"));
  }
}

void TensorData::check_count(int64_t n) const {
  if (n != shape_.numel()) {
    throw Error(absl::StrCat("TensorData: ", n, " values given for shape ", shape_.to_string(),
                             " (", shape_.numel(), " elements)"));
  }
}

void TensorData::throw_dtype_mismatch(DType wanted) const {
  throw Error(absl::StrCat("TensorData::as_slice: data is ", dtype_name(dtype_), ", not ",
                           dtype_name(wanted)));
}

void TensorData::convert_into(DType to, void* dst) const {
  runtime::convert_elements(dtype_, bytes_.data(), to, dst, num_elements());
}

TensorData TensorData::convert(DType dtype) const {
  TensorData out(dtype, shape_);
  convert_into(dtype, out.bytes_.data());
  return out;
}

double TensorData::value_at(int64_t i) const {
  double v = 0;
  runtime::convert_elements(dtype_, bytes_.data() + i * dtype_size(dtype_), DType::F64, &v, 1);
  return v;
}

void TensorData::assert_approx_eq(const TensorData& other, Tolerance tol) const {
  if (shape_ != other.shape_) {
    throw Error(absl::StrCat("assert_approx_eq: shapes differ: ", shape_.to_string(), " and ",
                             other.shape_.to_string()));
  }
  auto a = to_vec<double>(), b = other.to_vec<double>();
  std::string report;
  int mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    bool ok = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i] ||
              (std::isfinite(a[i]) && std::isfinite(b[i]) &&
               std::abs(a[i] - b[i]) <= tol.atol + tol.rtol * std::abs(b[i]));
    if (ok) continue;
    if (++mismatches <= 5) absl::StrAppend(&report, "\n  [", i, "]: ", a[i], " vs ", b[i]);
  }
  if (mismatches > 0) {
    throw Error(absl::StrCat("assert_approx_eq: ", mismatches, " of ", a.size(),
                             " elements differ (rtol=", tol.rtol, ", atol=", tol.atol, ")",
                             report));
  }
}

void TensorData::assert_eq(const TensorData& other, bool strict) const {
  if (strict && dtype_ != other.dtype_) {
    throw Error(absl::StrCat("assert_eq: dtypes differ: ", dtype_name(dtype_), " and ",
                             dtype_name(other.dtype_)));
  }
  assert_approx_eq(other, Tolerance{0.0, 0.0});
}

std::string TensorData::to_string() const {
  std::string s = absl::StrCat(dtype_name(dtype_), shape_.to_string(), " [");
  for (int64_t i = 0; i < num_elements(); ++i) absl::StrAppend(&s, i ? ", " : "", value_at(i));
  return s + "]";
}

}  // namespace ember
