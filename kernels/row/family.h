#pragma once
// The row family: one workgroup per row of the index space along one axis: its reductions (sum,
// max, arg-max...), their fused prologue, then an elementwise epilogue over the row and the
// reduced row. Long reductions are split in two before planning (split_reductions.h).
#include <cstdint>

#include "kernels/family.h"

namespace ember::jit {

const Family& row_family();

// The steps each thread of a `workgroup`-thread row kernel takes over a row of this length
// when the row is kept in registers (a power of two), 0 when it is too long for that: a
// specialisation, so the compiled-kernel cache keys on it.
int row_cache_steps(int64_t row_length, int workgroup);

}  // namespace ember::jit
