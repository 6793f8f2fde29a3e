#pragma once
// Element conversion of host memory between any two dtypes, with the same rules as the Cast
// primitive (used to read tensor data as another element type).
#include <cstdint>

#include "ir/dtype.h"

namespace ember::runtime {

void convert_elements(DType from, const void* src, DType to, void* dst, int64_t n);

}  // namespace ember::runtime
