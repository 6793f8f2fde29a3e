#pragma once

namespace ember::jit {

// GLSL source of f64 exp_d, expm1_d, log_d, log1p_d, tanh_d, sinh_d, cosh_d, sin_d, cos_d,
// tan_d, erf_d and pow_pos_d (a > 0). GLSL defines exp, log, sin... for float only, so without
// these a double would go through float (1e-7 relative error). Emitted into kernels that use
// doubles.
extern const char* const kGlslDoubleMath;

}  // namespace ember::jit
