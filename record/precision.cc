#include "record/precision.h"

#include <cmath>

namespace ember::record {

namespace {

struct HalfRange {
  double min_normal, max;
};

HalfRange range_of(DType half) {
  if (half == DType::F16) return {6.103515625e-05, 65504.0};
  return {1.1754943508222875e-38, 3.3895313892515355e+38};  // bf16
}

// No finite value past the half type's largest, and at most 1 in 100 non-zero values below its
// smallest normal (a stray tiny weight loses some relative precision, within half a subnormal
// step, but a tensor of small values, such as batch-norm variances or Adam's second moments,
// would lose most of its bits or flush to zero).
template <class T>
bool values_fit(std::span<const T> values, HalfRange r) {
  size_t nonzero = 0, tiny = 0;
  for (T v : values) {
    const double a = std::abs(static_cast<double>(v));
    if (a == 0 || std::isnan(a) || std::isinf(a)) continue;
    if (a > r.max) return false;
    ++nonzero;
    if (a < r.min_normal) ++tiny;
  }
  return tiny * 100 <= nonzero;
}

}  // namespace

bool fits_half(const TensorData& data, DType half) {
  const HalfRange r = range_of(half);
  if (data.dtype() == DType::F32) return values_fit(data.as_slice<float>(), r);
  if (data.dtype() == DType::F64) return values_fit(data.as_slice<double>(), r);
  return false;
}

Entry with_precision(const Entry& entry, Precision precision) {
  if (precision == Precision::full) return entry;
  if (entry.dtype() != DType::F32 && entry.dtype() != DType::F64) return entry;
  const DType half = precision == Precision::half ? DType::F16 : DType::BF16;
  TensorData data = entry.to_data();
  if (!fits_half(data, half)) return entry;
  return Entry(entry.path, data.convert(half), entry.id, entry.kind);
}

}  // namespace ember::record
