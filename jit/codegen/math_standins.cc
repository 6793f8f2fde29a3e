#include "jit/codegen/math_standins.h"

namespace ember::jit {

// f32 literals are wrapped in EM_F(): a bare 1.0 is an f32 in GLSL and an f64 in CUDA C++.
const char* const kMathStandins = R"(
EM_FN uint upow(uint base, uint e) {
  uint r = 1u;
  while (e > 0u) { if ((e & 1u) != 0u) r *= base; base *= base; e >>= 1u; }
  return r;
}
// log(u) * x / (u - 1) corrects u's rounding; at u = +inf it would be inf / inf.
EM_FN float log1p_f(float x) {
  float u = EM_F(1.0) + x;
  if (u == EM_F(1.0) || (isinf(u) && u > EM_F(0.0))) return u == EM_F(1.0) ? x : u;
  return LOGF(u) * x / (u - EM_F(1.0));
}
// tanh and sinh without cancellation near 0 (minimax polynomial there, Cephes' tanhf), and
// without overflow for large |x|.
EM_FN float tanh_f(float x) {
  float a = ABSF(x);
  if (a < EM_F(0.625)) {
    float z = x * x;
    return ((((EM_F(-5.70498872745e-3) * z + EM_F(2.06390887954e-2)) * z - EM_F(5.37397155531e-2)) * z + EM_F(1.33314422036e-1)) * z - EM_F(3.33332819422e-1)) * z * x + x;
  }
  float r = EM_F(1.0) - EM_F(2.0) / (EXPF(EM_F(2.0) * a) + EM_F(1.0));
  return x < EM_F(0.0) ? -r : r;
}
EM_FN float sinh_f(float x) {
  if (ABSF(x) < EM_F(0.5)) { float z = x * x; return x * (EM_F(1.0) + z / EM_F(6.0) * (EM_F(1.0) + z / EM_F(20.0) * (EM_F(1.0) + z / EM_F(42.0)))); }
  return SINHF(x);
}
// erf(x) = x P(x^2) / Q(x^2) for |x| < 3.92, +-1 beyond, where erf rounds to +-1 in f32 (the
// fit's last ulp there would make gelu(-20) -3e-6 instead of -0). A rational fit of relative
// error 6.5e-8 made for Ember (scripts/fit_erf.py), within 6 ulp of erf in f32 (A&S 7.1.26
// before: 11 ulp, and two branches that vector code computes both of). One division, no exp,
// Horner steps as fused multiply-adds (one rounding each on the CPU and CUDA; GLSL's fma may be
// split unless `precise`): the CPU's vector loops run it near memory speed.
EM_FN float erf_f(float x) {
  float c = x >= EM_F(-3.92) ? (x <= EM_F(3.92) ? x : EM_F(3.92)) : EM_F(-3.92);
  float t = c * c;
  float p = FMAF(FMAF(FMAF(FMAF(FMAF(FMAF(EM_F(1.9107960372e-08), t, EM_F(-1.9419076435e-06)), t, EM_F(1.4723811135e-04)), t, EM_F(3.9890201897e-03)), t, EM_F(5.1520335251e-02)), t, EM_F(2.0709252870e-01)), t, EM_F(1.1283790946e+00));
  float q = FMAF(FMAF(FMAF(FMAF(EM_F(1.0206985166e-03), t, EM_F(1.4955083324e-02)), t, EM_F(1.1795701179e-01)), t, EM_F(5.1686223346e-01)), t, EM_F(1.0000000000e+00));
  float y = c * p / q;
  y = x >= EM_F(3.92) ? EM_F(1.0) : (x <= EM_F(-3.92) ? EM_F(-1.0) : y);
  return isnan(x) ? x : y;
}
// sin/cos with the argument reduced modulo 2*pi in double first: GPU sin/cos lose all accuracy
// for large arguments (|x| in the thousands and beyond).
EM_FN float reduce_2pi(float x) {
  if (ABSF(x) < EM_F(1024.0)) return x;
  double d = double(x);
  return float(d - TWO_PI_D * FLOORD(d / TWO_PI_D));
}
EM_FN float sin_f(float x) { return SINF(reduce_2pi(x)); }
EM_FN float cos_f(float x) { return COSF(reduce_2pi(x)); }
EM_FN float tan_f(float x) { return TANF(reduce_2pi(x)); }
EM_FN uint f2bf(float f) {
  uint u = F2U(f);
  if (isnan(f)) return 0x7fc0u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
EM_FN float philox_sample(uint c0, uint c1, uint k0, uint k1, float a, float b, int dist) {
  uint c2 = 0u, c3 = 0u;
  for (int r = 0; r < 10; ++r) {
    uint hi0 = MULHI(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    uint hi1 = MULHI(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    uint n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  float u = float(c0 >> 8) * EM_F(5.9604644775390625e-08);
  if (dist == 0) return a + (b - a) * u;
  if (dist == 1) {
    float u1 = (float(c0 >> 8) + EM_F(1.0)) * EM_F(5.9604644775390625e-08);
    float u2 = float(c1 >> 8) * EM_F(5.9604644775390625e-08);
    return a + b * SQRTF(EM_F(-2.0) * LOGF(u1)) * COSF(EM_F(6.283185307179586) * u2);
  }
  return u < a ? EM_F(1.0) : EM_F(0.0);
}
)";

}  // namespace ember::jit
