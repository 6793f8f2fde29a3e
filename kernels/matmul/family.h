#pragma once
// The matmul family: a (batched) matmul with an elementwise epilogue on its output. Variants: the
// SIMT template (every device; per-thread block and pipeline stages), the CUDA f32 vector tile,
// and the tensor-core tiles (mma.sync, wgmma, wgmma fed by the copy engine). Split-K is its
// rewrite before planning (split_k.h).
#include "kernels/family.h"

namespace ember::jit {

const Family& matmul_family();

}  // namespace ember::jit
