#pragma once
// The host family of the CPU target: matmuls, convolutions, sorts and scatters run as the
// reference executor's primitives (Eigen's threaded products for the first two) between the
// compiled kernels. Their operands arrive stored, or as views of stored values, which the
// primitive reads in place (a transposed weight is not copied).
#include "kernels/family.h"

namespace ember::jit {

const Family& host_family();

// Whether op is one the host family applies to a stored value itself when reading an operand:
// the views (its input's buffer, other strides) and padding (a copy, made by the reference).
bool is_host_view(ir::OpKind op);

}  // namespace ember::jit
