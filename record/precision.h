#pragma once
// Storing float tensors in half precision (Burn's HalfPrecisionSettings), keeping f32 for the
// tensors whose values the half type cannot hold.
#include "record/options.h"
#include "record/record.h"

namespace ember::record {

// Whether the values of `data` (an f32/f64 tensor) survive conversion to `half` (F16 or BF16):
// none finite above its largest value, and at most 1% of the non-zero ones below its smallest
// normal number (those few keep their value within half a subnormal step).
bool fits_half(const TensorData& data, DType half);
// The entry as stored under `precision`: an f32/f64 entry becomes f16 (bf16) when its values fit,
// other entries are returned as they are.
Entry with_precision(const Entry& entry, Precision precision);

}  // namespace ember::record
