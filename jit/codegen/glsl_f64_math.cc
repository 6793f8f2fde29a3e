#include "jit/codegen/glsl_f64_math.h"

namespace ember::jit {

// Range reduction to a small interval, then a Taylor (or positive) series long enough that its
// truncation is below 2^-60: a few ulp in all, checked against 120-bit mpmath on a
// Python model of the same code (exp, log, tanh, sinh, cosh, sin, cos, tan within 6e-16
// relative, erf 9e-16; sin and cos to |x| = 1e8). Constants carry the lf suffix: a plain GLSL
// literal is a float. Every local is precise: without it a driver may reassociate
// (x - k*ln2_hi) - k*ln2_lo into x - k*ln2, losing the split (lavapipe did: exp(600) off by
// 2e-14). pow_pos_d is exp(b * log(a)): its relative error grows with |b*ln(a)|
// (about 1e-13 when the result nears the f64 range).
const char* const kGlslDoubleMath = R"(
double inf_d() { return double(uintBitsToFloat(0x7f800000u)); }
double nan_d() { return double(uintBitsToFloat(0x7fc00000u)); }
// x = k*ln2 + r with ln2 in two parts (the first has 32 bits, so k*ln2_hi is exact).
double exp_d(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return inf_d();
  if (x < -745.1332191019412lf) return 0.0lf;
  precise double k = roundEven(x * 1.4426950408889634lf);
  precise double r = (x - k * 6.93147180369123816490e-01lf) - k * 1.90821492927058770002e-10lf;
  precise double p = 1.0lf;
  for (int n = 13; n >= 1; --n) p = 1.0lf + p * r / double(n);
  int ki = int(k);
  return ldexp(ldexp(p, ki / 2), ki - ki / 2);  // two steps: 2^k alone may overflow
}
double expm1_d(double x) {
  if (abs(x) >= 0.5lf) return exp_d(x) - 1.0lf;
  precise double p = 1.0lf;
  for (int n = 18; n >= 2; --n) p = 1.0lf + p * x / double(n);
  precise double v = x * p;
  return v;
}
// x = 2^e * m with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s), s = (m-1)/(m+1).
double log_d(double x) {
  if (isnan(x) || x < 0.0lf) return nan_d();
  if (x == 0.0lf) return -inf_d();
  if (isinf(x)) return x;
  int e0 = 0;
  if (x < 2.2250738585072014e-308lf) { x *= 18014398509481984.0lf; e0 = -54; }
  int e;
  precise double m = frexp(x, e);
  if (m < 0.7071067811865476lf) { m *= 2.0lf; e -= 1; }
  precise double f = m - 1.0lf;
  precise double s = f / (2.0lf + f);
  precise double z = s * s;
  precise double p = 0.0lf;
  for (int n = 23; n >= 3; n -= 2) p = (p + 1.0lf / double(n)) * z;
  precise double de = double(e + e0);
  precise double lg =
      de * 6.93147180369123816490e-01lf + (2.0lf * s * (1.0lf + p) + de * 1.90821492927058770002e-10lf);
  return lg;
}
double log1p_d(double x) {
  precise double u = 1.0lf + x;
  if (u == 1.0lf) return x;
  if (u == inf_d()) return u;
  precise double v = log_d(u) * (x / (u - 1.0lf));
  return v;
}
double tanh_d(double x) {
  precise double a = abs(x), r = 1.0lf;
  if (isnan(x)) return x;
  if (a < 22.0lf) { precise double t = expm1_d(2.0lf * a); r = t / (t + 2.0lf); }
  return x < 0.0lf ? -r : r;
}
double sinh_d(double x) {
  precise double a = abs(x), r;
  if (a < 0.5lf) {
    precise double t = expm1_d(a);
    r = 0.5lf * (t + t / (t + 1.0lf));
  } else if (a > 709.0lf) {
    precise double e = exp_d(0.5lf * a);
    r = (0.5lf * e) * e;
  } else {
    precise double e = exp_d(a);
    r = 0.5lf * (e - 1.0lf / e);
  }
  return x < 0.0lf ? -r : r;
}
double cosh_d(double x) {
  precise double a = abs(x), v;
  if (a > 709.0lf) {
    precise double e = exp_d(0.5lf * a);
    v = (0.5lf * e) * e;
  } else {
    precise double e = exp_d(a);
    v = 0.5lf * (e + 1.0lf / e);
  }
  return v;
}
double sin_poly_d(double r) {
  precise double z = r * r, p = 1.0lf;
  for (int k = 21; k >= 3; k -= 2) p = 1.0lf - z / double(k * (k - 1)) * p;
  precise double v = r * p;
  return v;
}
double cos_poly_d(double r) {
  precise double z = r * r, p = 1.0lf;
  for (int k = 22; k >= 2; k -= 2) p = 1.0lf - z / double(k * (k - 1)) * p;
  return p;
}
// x = n*pi/2 + r, |r| <= pi/4; pi/2 in three parts whose products with n are exact in fma.
double reduce_pio2_d(double x, out int q) {
  precise double n = roundEven(x * 0.6366197723675814lf);
  precise double r = fma(-n, 1.5707963267341256lf, x);
  r = fma(-n, 6.077100506303966e-11lf, r);
  r = fma(-n, 2.0222662487959506e-21lf, r);
  q = int(mod(n, 4.0lf));
  return r;
}
double sin_d(double x) {
  if (isinf(x) || isnan(x)) return nan_d();
  int q;
  precise double r = reduce_pio2_d(x, q);
  precise double v = (q & 1) == 0 ? sin_poly_d(r) : cos_poly_d(r);
  return q >= 2 ? -v : v;
}
double cos_d(double x) {
  if (isinf(x) || isnan(x)) return nan_d();
  int q;
  precise double r = reduce_pio2_d(x, q);
  precise double v = (q & 1) == 0 ? cos_poly_d(r) : sin_poly_d(r);
  return (q == 1 || q == 2) ? -v : v;
}
double tan_d(double x) {
  if (isinf(x) || isnan(x)) return nan_d();
  int q;
  precise double r = reduce_pio2_d(x, q);
  precise double s = sin_poly_d(r), c = cos_poly_d(r);
  precise double v = (q & 1) == 0 ? s / c : -c / s;
  return v;
}
// |x| < 1.5: erf = 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (1*3*...*(2n+1)), all terms positive;
// beyond: 1 - erfc from its continued fraction. exp(-x^2) corrected by x*x's rounding error.
double erf_d(double x) {
  precise double a = abs(x);
  if (isnan(x) || a == 0.0lf) return x;
  if (a >= 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
  precise double x2 = a * a;
  precise double ex = exp_d(-x2) * (1.0lf - fma(a, a, -x2));
  precise double r;
  if (a < 1.5lf) {
    precise double t = a, s = a;
    for (int n = 1; n < 120; ++n) {
      t *= 2.0lf * x2 / double(2 * n + 1);
      s += t;
      if (t < 1e-17lf * s) break;
    }
    r = 1.1283791670955126lf * s * ex;
  } else {
    precise double t = a;
    for (int k = 100; k >= 1; --k) t = a + (double(k) * 0.5lf) / t;
    r = 1.0lf - ex / (1.7724538509055160lf * t);
  }
  return x < 0.0lf ? -r : r;
}
double pow_pos_d(double a, double b) {
  precise double y = b * log_d(a);
  return exp_d(y);
}
)";

}  // namespace ember::jit
