// ember CPU kernels
typedef unsigned int uint;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;
#define EM_INLINE static inline __attribute__((always_inline))
// libm's functions, scalar: every kernel gets the same bits for the same input whether its loop
// is vectorised or not (a value recomputed in two kernels must compare equal: the backward of
// max relies on it; glibc's vector variants round differently from the scalar ones). exp and
// log, the hot ones, are written out below in plain arithmetic, which vectorises and rounds
// the same in every lane.
extern "C" {
float expf(float) noexcept;
double exp(double) noexcept;
float logf(float) noexcept;
double log(double) noexcept;
float log1pf(float) noexcept;
double log1p(double) noexcept;
float sinf(float) noexcept;
double sin(double) noexcept;
float cosf(float) noexcept;
double cos(double) noexcept;
float tanf(float) noexcept;
double tan(double) noexcept;
float tanhf(float) noexcept;
double tanh(double) noexcept;
float sinhf(float) noexcept;
double sinh(double) noexcept;
float coshf(float) noexcept;
double cosh(double) noexcept;
float erff(float) noexcept;
double erf(double) noexcept;
float powf(float, float) noexcept;
double pow(double, double) noexcept;
}
EM_INLINE bool isnan(float x) { return __builtin_isnan(x); }
EM_INLINE bool isnan(double x) { return __builtin_isnan(x); }
EM_INLINE bool isinf(float x) { return __builtin_isinf(x); }
EM_INLINE bool isinf(double x) { return __builtin_isinf(x); }
EM_INLINE float trunc(float x) { return __builtin_truncf(x); }
EM_INLINE double trunc(double x) { return __builtin_trunc(x); }
EM_INLINE float pow(float a, float b) { return powf(a, b); }
EM_INLINE uint f2u_(float f) { return __builtin_bit_cast(uint, f); }
EM_INLINE float u2f_(uint u) { return __builtin_bit_cast(float, u); }
EM_INLINE uint mulhi_(uint a, uint b) { return uint((uint64_t(a) * uint64_t(b)) >> 32); }
EM_INLINE float h2f(uint16_t h) { return float(__builtin_bit_cast(_Float16, h)); }
EM_INLINE uint16_t f2h(float f) { return __builtin_bit_cast(uint16_t, (_Float16)f); }
EM_INLINE float bf2f(uint16_t h) { return u2f_(uint(h) << 16); }
EM_INLINE double hilo2d_(uint lo, uint hi) {
  return __builtin_bit_cast(double, (uint64_t(hi) << 32) | uint64_t(lo));
}
// max/min with a NaN operand winning, as reductions of vectorised loops (one partial result
// per lane, combined at the end).
// NaN wins: a when it is larger or NaN, else b (NaN when b is). Two compares and a blend.
EM_INLINE float nanmax_(float a, float b) { return (a > b || isnan(a)) ? a : b; }
EM_INLINE float nanmin_(float a, float b) { return (a < b || isnan(a)) ? a : b; }
EM_INLINE double nanmax_(double a, double b) { return (a > b || isnan(a)) ? a : b; }
EM_INLINE double nanmin_(double a, double b) { return (a < b || isnan(a)) ? a : b; }
#pragma omp declare reduction(em_max                                \
                              : float, double                       \
                              : omp_out = nanmax_(omp_out, omp_in)) \
    initializer(omp_priv = -__builtin_inf())
#pragma omp declare reduction(em_min                                \
                              : float, double                       \
                              : omp_out = nanmin_(omp_out, omp_in)) \
    initializer(omp_priv = __builtin_inf())
// This call's contiguous share of [0, n) when the work is cut into nwg parts.
EM_INLINE uint part_(uint n, uint wg, uint nwg) { return uint(uint64_t(n) * wg / nwg); }
EM_INLINE void error_(uint* E, uint code, uint value, uint limit, uint value_hi) {
  uint bit = code - 1u;
  __atomic_fetch_or(&E[4u + bit / 32u], 1u << (bit % 32u), __ATOMIC_RELAXED);
  uint expected = 0u;
  if (__atomic_compare_exchange_n(&E[0], &expected, code, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED)) {
    E[1] = value;
    E[2] = limit;
    E[3] = value_hi;
  }
}
// e^x as 2^n * e^r, n = rint(x / ln 2), |r| <= ln 2 / 2, e^r by Cephes' expf polynomial
// (within 2 ulp of libm's); 2^n applied in two halves so that subnormal results come out right.
// Written for the vector loops, whose time softmax spends mostly here: the clamps are a compare
// and a blend each and let a NaN through (no select at the end); n comes from the adder's
// rounding (1.5 * 2^23 + c / ln 2 holds n in its low mantissa bits), read as an integer from
// those bits (no conversion instruction, and no undefined float-to-int conversion of a NaN).
EM_INLINE float exp_f(float x) {
  float c = x < -104.0f ? -104.0f : x;
  c = c > 89.0f ? 89.0f : c;
  float t = __builtin_fmaf(c, 1.44269504088896341f, 12582912.0f);
  float n = t - 12582912.0f;
  float r = __builtin_fmaf(n, -0.693359375f, c);
  r = __builtin_fmaf(n, 2.12194440e-4f, r);
  float z = r * r;
  // Horner by fused multiply-adds: half the vector operations, the same bits in every kernel.
  float h = __builtin_fmaf(1.9875691500e-4f, r, 1.3981999507e-3f);
  h = __builtin_fmaf(h, r, 8.3334519073e-3f);
  h = __builtin_fmaf(h, r, 4.1665795894e-2f);
  h = __builtin_fmaf(h, r, 1.6666665459e-1f);
  h = __builtin_fmaf(h, r, 5.0000001201e-1f);
  float p = __builtin_fmaf(h, z, r) + 1.0f;
  int k = int(f2u_(t) - 0x4B400000u), k1 = k >> 1, k2 = k - k1;
  return p * u2f_(uint(k1 + 127) << 23) * u2f_(uint(k2 + 127) << 23);
}
// log x = log m + e log 2 with x = m 2^e, m in [sqrt(1/2), sqrt(2)), by Cephes' logf polynomial.
EM_INLINE float log_f(float x) {
  bool sub = x < 1.17549435e-38f;
  float v = sub ? x * 8388608.0f : x;
  uint b = f2u_(v);
  int e = int((b >> 23) & 0xffu) - 126 - (sub ? 23 : 0);
  float m = u2f_((b & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  bool low = m < 0.707106781186547524f;
  e = low ? e - 1 : e;
  m = low ? (m + m) - 1.0f : m - 1.0f;
  float z = m * m;
  float y = ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m -
                  1.2420140846e-1f) *
                     m +
                 1.4249322787e-1f) *
                    m -
                1.6668057665e-1f) *
                   m +
               2.0000714765e-1f) *
                  m -
              2.4999993993e-1f) *
                 m +
             3.3333331174e-1f) *
            m * z;
  float fe = float(e);
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float r = (m + y) + fe * 0.693359375f;
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x < 0.0f ? __builtin_nanf("") : r;
  r = isinf(x) && x > 0.0f ? x : r;
  return isnan(x) ? x : r;
}
#define EM_FN EM_INLINE
#define EM_F(x) x##f
#define TWO_PI_D 6.283185307179586
#define EXPF exp_f
#define LOGF logf
#define SINF sinf
#define COSF cosf
#define TANF tanf
#define SINHF sinhf
#define FMAF __builtin_fmaf
#define ABSF __builtin_fabsf
#define SQRTF __builtin_sqrtf
#define FLOORD __builtin_floor
#define F2U f2u_
#define U2F u2f_
#define MULHI mulhi_

EM_FN uint upow(uint base, uint e) {
  uint r = 1u;
  while (e > 0u) {
    if ((e & 1u) != 0u) r *= base;
    base *= base;
    e >>= 1u;
  }
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
    return ((((EM_F(-5.70498872745e-3) * z + EM_F(2.06390887954e-2)) * z - EM_F(5.37397155531e-2)) *
                 z +
             EM_F(1.33314422036e-1)) *
                z -
            EM_F(3.33332819422e-1)) *
               z * x +
           x;
  }
  float r = EM_F(1.0) - EM_F(2.0) / (EXPF(EM_F(2.0) * a) + EM_F(1.0));
  return x < EM_F(0.0) ? -r : r;
}
EM_FN float sinh_f(float x) {
  if (ABSF(x) < EM_F(0.5)) {
    float z = x * x;
    return x * (EM_F(1.0) +
                z / EM_F(6.0) * (EM_F(1.0) + z / EM_F(20.0) * (EM_F(1.0) + z / EM_F(42.0))));
  }
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
  float p = FMAF(FMAF(FMAF(FMAF(FMAF(FMAF(EM_F(1.9107960372e-08), t, EM_F(-1.9419076435e-06)), t,
                                     EM_F(1.4723811135e-04)),
                                t, EM_F(3.9890201897e-03)),
                           t, EM_F(5.1520335251e-02)),
                      t, EM_F(2.0709252870e-01)),
                 t, EM_F(1.1283790946e+00));
  float q = FMAF(
      FMAF(FMAF(FMAF(EM_F(1.0206985166e-03), t, EM_F(1.4955083324e-02)), t, EM_F(1.1795701179e-01)),
           t, EM_F(5.1686223346e-01)),
      t, EM_F(1.0000000000e+00));
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
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
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
namespace k0 {
// row_binary_mul

EM_INLINE float fpow_float(float a, float b) { return pow(a, b); }

EM_INLINE float frem_float(float a, float b) {
  float r = (isinf(b) && !isinf(a)) ? a : a - b * trunc(a / b);
  return (r != float(0) && ((r < float(0)) != (b < float(0)))) ? r + b : r;
}
// Edited by hand from softmax_generated.cc: the next row's max is taken inside this row's exp
// pass, so that its loads from memory overlap the exp arithmetic (the generated kernel reads
// each row from memory in a pass of its own). GCC 12 does not vectorise an `omp simd` loop
// with two reductions when one is the declared em_max, so this max is the built-in one (its
// NaN semantics differ: a generator would need a NaN flag beside it). Row indices carry
// __builtin_unreachable bounds as the generated code does: without them GCC cannot prove the
// rows contiguous and emulates a gather (2x slower).
extern "C" void ember_k0_row_binary_mul(const uint* P_, void* const* B_, uint wg_, uint nwg_) {
  uint p_[4];
  for (int i = 0; i < 4; ++i) p_[i] = P_[i];
  const float* __restrict__ b0 = static_cast<const float*>(B_[0]);
  float* __restrict__ b1 = static_cast<float*>(B_[1]);
  const uint lo = part_(1024u, wg_, nwg_), hi = part_(1024u, wg_ + 1u, nwg_);
  if (lo >= 1024u || hi > 1024u) __builtin_unreachable();
  float max = -__builtin_inff();  // of the current row
  if (lo < hi) {
    _Pragma("omp simd reduction(max:max)") for (uint i = 0u; i < 4096u; ++i) {
      float x = b0[lo * 4096u + i];
      max = max > x ? max : x;
    }
  }
  for (uint row = lo; row < hi; ++row) {
    if (row >= 1024u) __builtin_unreachable();
    const uint next = row + 1u < hi ? row + 1u : row;
    if (next >= 1024u) __builtin_unreachable();
    float e[4096];
    float sum = 0.0f, next_max = -__builtin_inff();
    _Pragma("omp simd reduction(+:sum) reduction(max:next_max)") for (uint i = 0u; i < 4096u; ++i) {
      float v = exp_f(b0[row * 4096u + i] - max);
      e[i] = v;
      sum = sum + v;
      float x = b0[next * 4096u + i];
      next_max = next_max > x ? next_max : x;
    }
    const float scale = u2f_(p_[3]) / sum;
    _Pragma("omp simd") for (uint i = 0u; i < 4096u; ++i) b1[row * 4096u + i] = e[i] * scale;
    max = next_max;
  }
}
}  // namespace k0
