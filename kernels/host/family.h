#pragma once
// The host family of the CPU target: matmuls, convolutions, sorts and scatters run as the
// reference executor's primitives (Eigen's threaded products for the first two) between the
// compiled kernels. Their operands arrive stored, or as views of stored values, which the
// primitive reads in place (a transposed weight is not copied).
#include "kernels/family.h"

namespace ember::jit {

const Family& host_family();

// Whether op is a view the host family reads through (its input's buffer, other strides).
bool is_host_view(ir::OpKind op);

}  // namespace ember::jit
