#pragma once

namespace ember::jit {

// The f32 math stand-ins of generated kernels, written once for every C-like dialect: log1p_f,
// tanh_f, sinh_f, erf_f, sin_f, cos_f, tan_f (argument reduced in double first), f2bf (f32 to
// bf16 bits, ties to even), upow and philox_sample (Philox 4x32-10, then uniform, normal by
// Box-Muller, or Bernoulli). GLSL and CUDA compute the same formulas from the same hardware
// functions, so the two GPUs agree (they differed: CUDA called its libm's erff, tanhf, ...).
// A dialect defines, before this text: EM_FN (a function's qualifiers), EM_F(x) (an f32 literal),
// TWO_PI_D (2*pi as an f64 literal), the f32 functions EXPF LOGF SINF COSF TANF SINHF ABSF SQRTF,
// FLOORD (f64 floor), U2F/F2U (bit casts) and MULHI(a, b) (the high word of a 32x32-bit product).
extern const char* const kMathStandins;

}  // namespace ember::jit
