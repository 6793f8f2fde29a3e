#include "jit/codegen/cpp_source.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "jit/codegen/helpers.h"
#include "jit/codegen/math_standins.h"
#include "jit/codegen/render.h"

namespace ember::jit {
namespace {

using ir::UnaryFn;

std::string storage_type(DType t) {
  switch (t) {
    case DType::F32:
      return "float";
    case DType::F16:
    case DType::BF16:
      return "uint16_t";
    case DType::F64:
      return "double";
    case DType::I32:
      return "int";
    case DType::I64:
      return "int64_t";
    case DType::U8:
    case DType::Bool:
      return "uint8_t";
  }
  return "float";
}

// No headers (each include costs the compiler time on every plan): the compiler's built-ins
// stand for libm, the integer types are spelled here.
constexpr const char* kHeader = R"(// ember CPU kernels
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
float expf(float) noexcept; double exp(double) noexcept;
float logf(float) noexcept; double log(double) noexcept;
float log1pf(float) noexcept; double log1p(double) noexcept;
float sinf(float) noexcept; double sin(double) noexcept;
float cosf(float) noexcept; double cos(double) noexcept;
float tanf(float) noexcept; double tan(double) noexcept;
float tanhf(float) noexcept; double tanh(double) noexcept;
float sinhf(float) noexcept; double sinh(double) noexcept;
float coshf(float) noexcept; double cosh(double) noexcept;
float erff(float) noexcept; double erf(double) noexcept;
float powf(float, float) noexcept; double pow(double, double) noexcept;
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
#pragma omp declare reduction(em_max : float, double : omp_out = nanmax_(omp_out, omp_in)) \
    initializer(omp_priv = -__builtin_inf())
#pragma omp declare reduction(em_min : float, double : omp_out = nanmin_(omp_out, omp_in)) \
    initializer(omp_priv = __builtin_inf())
// n floats of src to dst past the caches (non-temporal stores) where the CPU has such stores
// (SOp::StreamStore): plain stores of an output larger than the caches first read each line
// into them (write-allocate), a third more memory traffic, and evict what the kernel reuses.
// Plain stores up to dst's first vector-aligned element and for the tail; em_stream_fence_ at
// the end of the kernel orders the stores before the threads' join.
#if defined(__AVX512F__)
typedef float em_vs_ __attribute__((vector_size(64)));
#define EM_STREAM_LANES 16u
#define EM_STREAM_(p, v) __builtin_ia32_movntps512(p, v)
#elif defined(__AVX__)
typedef float em_vs_ __attribute__((vector_size(32)));
#define EM_STREAM_LANES 8u
#define EM_STREAM_(p, v) __builtin_ia32_movntps256(p, v)
#elif defined(__SSE__)
typedef float em_vs_ __attribute__((vector_size(16)));
#define EM_STREAM_LANES 4u
#define EM_STREAM_(p, v) __builtin_ia32_movntps(p, v)
#endif
EM_INLINE void em_stream_f32(float* __restrict__ dst, const float* __restrict__ src, uint n) {
  uint i = 0u;
#ifdef EM_STREAM_LANES
  typedef float unaligned_ __attribute__((vector_size(sizeof(em_vs_)), aligned(4), may_alias));
  const uint past = uint(reinterpret_cast<__UINTPTR_TYPE__>(dst) / 4u % EM_STREAM_LANES);
  const uint head = past == 0u ? 0u : EM_STREAM_LANES - past;
  for (; i < head && i < n; ++i) dst[i] = src[i];
  for (; i + EM_STREAM_LANES <= n; i += EM_STREAM_LANES)
    EM_STREAM_(dst + i, *reinterpret_cast<const unaligned_*>(src + i));
#endif
  for (; i < n; ++i) dst[i] = src[i];
}
EM_INLINE void em_stream_fence_() {
#ifdef EM_STREAM_LANES
  __builtin_ia32_sfence();
#endif
}
// This call's contiguous share of [0, n) when the work is cut into nwg parts.
EM_INLINE uint part_(uint n, uint wg, uint nwg) { return uint(uint64_t(n) * wg / nwg); }
EM_INLINE void error_(uint* E, uint code, uint value, uint limit, uint value_hi) {
  uint bit = code - 1u;
  __atomic_fetch_or(&E[4u + bit / 32u], 1u << (bit % 32u), __ATOMIC_RELAXED);
  uint expected = 0u;
  if (__atomic_compare_exchange_n(&E[0], &expected, code, false, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED)) {
    E[1] = value; E[2] = limit; E[3] = value_hi;
  }
}
// e^x as 2^n * e^r, n = rint(x / ln 2), |r| <= ln 2 / 2, e^r by Cephes' expf polynomial
// (within 0.86 ulp of e^x over every 97th float); 2^n applied in two halves so that subnormal
// results come out right. Written for the vector loops, whose time softmax spends mostly here
// (29 vector instructions with its load and store, AVX-512): the clamps are a compare and a
// blend each and let a NaN through (no select at the end); n comes from the adder's rounding
// (1.5 * 2^23 + c / ln 2 holds n in its low mantissa bits), read as an integer from those bits
// (no conversion instruction, and no undefined float-to-int conversion of a NaN), and the two
// halves' biased exponents come from those bits with the constants folded; the polynomial is
// one Horner chain of fused multiply-adds down to 1 + r + r^2 h(r).
EM_INLINE float exp_f(float x) {
  float c = x < -104.0f ? -104.0f : x;
  c = c > 89.0f ? 89.0f : c;
  float t = __builtin_fmaf(c, 1.44269504088896341f, 12582912.0f);
  float n = t - 12582912.0f;
  float r = __builtin_fmaf(n, -0.693359375f, c);
  r = __builtin_fmaf(n, 2.12194440e-4f, r);
  float h = __builtin_fmaf(1.9875691500e-4f, r, 1.3981999507e-3f);
  h = __builtin_fmaf(h, r, 8.3334519073e-3f);
  h = __builtin_fmaf(h, r, 4.1665795894e-2f);
  h = __builtin_fmaf(h, r, 1.6666665459e-1f);
  h = __builtin_fmaf(h, r, 5.0000001201e-1f);
  h = __builtin_fmaf(h, r, 1.0f);
  float p = __builtin_fmaf(h, r, 1.0f);
  // k = n as an integer; 2^k = 2^k1 2^k2 with k1 = floor(k / 2): e1 = k1 + 127, e2 = k2 + 127.
  const uint bits = f2u_(t), fold = 254u - 0x4B400000u;
  const uint e1 = uint(int(bits + fold) >> 1), e2 = bits - e1 + fold;
  return p * u2f_(e1 << 23) * u2f_(e2 << 23);
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
                 1.2420140846e-1f) * m + 1.4249322787e-1f) * m - 1.6668057665e-1f) * m +
              2.0000714765e-1f) * m - 2.4999993993e-1f) * m + 3.3333331174e-1f) * m * z;
  float fe = float(e);
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float r = (m + y) + fe * 0.693359375f;
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x < 0.0f ? __builtin_nanf("") : r;
  r = isinf(x) && x > 0.0f ? x : r;
  return isnan(x) ? x : r;
}
// erf_f of the shared stand-ins (math_standins.cc), the same bits, in fewer vector
// instructions (gelu's loop: 40 -> 34 per 16 elements with AVX-512): its clamps and the selects
// to +-1 let a NaN through (compares with NaN are false), so no NaN select at the end. The
// shared text keeps the explicit test: GPU compilers may assume compares see no NaN.
EM_INLINE float erf_c(float x) {
  float c = x < -3.92f ? -3.92f : x;
  c = c > 3.92f ? 3.92f : c;
  float t = c * c;
  float p = __builtin_fmaf(1.9107960372e-08f, t, -1.9419076435e-06f);
  p = __builtin_fmaf(p, t, 1.4723811135e-04f);
  p = __builtin_fmaf(p, t, 3.9890201897e-03f);
  p = __builtin_fmaf(p, t, 5.1520335251e-02f);
  p = __builtin_fmaf(p, t, 2.0709252870e-01f);
  p = __builtin_fmaf(p, t, 1.1283790946e+00f);
  float q = __builtin_fmaf(1.0206985166e-03f, t, 1.4955083324e-02f);
  q = __builtin_fmaf(q, t, 1.1795701179e-01f);
  q = __builtin_fmaf(q, t, 5.1686223346e-01f);
  q = __builtin_fmaf(q, t, 1.0000000000e+00f);
  float y = c * p / q;
  y = x >= 3.92f ? 1.0f : y;
  return x <= -3.92f ? -1.0f : y;
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
)";

constexpr const char* kFloatHelpers = R"(
EM_INLINE T fpow_T(T a, T b) { return pow(a, b); }
)";

class Cpp final : public Dialect {
 public:
  Cpp(const KernelDesc& k, int index) : k_(&k), index_(index) {}

  std::string type(CType t) const override {
    switch (t) {
      case CType::Float:
        return "float";
      case CType::Double:
        return "double";
      case CType::Int:
        return "int";
      case CType::Int64:
        return "int64_t";
      case CType::Uint:
        return "uint";
      case CType::Bool:
        return "bool";
    }
    return "float";
  }

  // Each kernel's helpers live in a namespace of its own: one translation unit holds them all.
  std::string prelude(const KernelDesc& k) const override {
    std::string s = absl::StrCat("namespace k", index_, " {\n// ", k.name, "\n");
    std::set<CType> used;
    for (const Expr& e : k.exprs) used.insert(e.type);
    for (CType t : {CType::Float, CType::Double}) {
      if (used.count(t)) {
        s += absl::StrReplaceAll(kFloatHelpers, {{"T", type(t)}});
        s += instantiate(kFloatRemainder, type(t), "EM_INLINE");
      }
    }
    for (CType t : {CType::Int, CType::Int64}) {
      if (used.count(t)) s += instantiate(kIntHelpers, type(t), "EM_INLINE");
    }
    return s;
  }

  std::string entry_begin(const KernelDesc& k) const override {
    std::string s = absl::StrCat("extern \"C\" void ", cpp_entry(k, index_),
                                 "(const uint* P_, void* const* B_, uint wg_, uint nwg_) {\n");
    // The parameters are copied out first: stores through the buffers cannot change a local
    // array, so the compiler keeps them in registers across the loop.
    absl::StrAppend(&s, "  uint p_[", std::max(1, k.num_params), "];\n  for (int i = 0; i < ",
                    k.num_params, "; ++i) p_[i] = P_[i];\n");
    const char* restrict = k.buffers_may_alias ? "" : " __restrict__";
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      std::string t =
          absl::StrCat(k.buffers[i].written ? "" : "const ", storage_type(k.buffers[i].dtype), "*");
      absl::StrAppend(&s, "  ", t, restrict, " b", i, " = static_cast<", t, ">(B_[", i, "]);\n");
    }
    if (k.uses_errors)
      absl::StrAppend(&s, "  uint* E = static_cast<uint*>(B_[", k.buffers.size(), "]);\n");
    for (size_t i = 0; i < k.shared.size(); ++i) {
      // Only CUDA's copy-engine tiles have dynamic shared memory.
      if (k.shared[i].size == kDynamicShared) throw std::logic_error("dynamic shared memory");
      absl::StrAppend(&s, "  ", type(k.shared[i].type), " sh", i, "[", k.shared[i].size, "];\n");
    }
    return s;
  }
  std::string entry_end() const override {
    const bool streams = std::any_of(k_->body.begin(), k_->body.end(),
                                     [](const Stmt& s) { return s.op == SOp::StreamStore; });
    return absl::StrCat(streams ? "  em_stream_fence_();\n" : "", "}\n}  // namespace\n");
  }
  std::string stream_store(const KernelDesc&, int buffer, const std::string& start,
                           const std::string& array, const std::string& count) const override {
    return absl::StrCat("em_stream_f32(b", buffer, " + ", start, ", ", array, ", ", count, ");");
  }

  // Sizes and strides are compiled in (the plan is compiled per layout on the CPU: divisions
  // by constants become multiplications, and loops vectorise).
  std::string param(int slot) const override {
    if (static_cast<size_t>(slot) < k_->param_fixed.size() && k_->param_fixed[slot])
      return absl::StrCat(k_->param_values[slot], "u");
    return absl::StrCat("p_[", slot, "]");
  }
  std::string param_float(int slot) const override { return absl::StrCat("u2f_(p_[", slot, "])"); }
  std::string param_double(int slot) const override {
    return absl::StrCat("hilo2d_(p_[", slot, "], p_[", slot + 1, "])");
  }
  std::string param_int64(int slot) const override {
    return absl::StrCat("int64_t((uint64_t(p_[", slot + 1, "]) << 32) | uint64_t(p_[", slot, "]))");
  }
  // One thread per workgroup.
  std::string builtin(Builtin b) const override {
    switch (b) {
      case Builtin::LocalId:
        return "0u";
      case Builtin::WorkgroupId:
        return "wg_";
      case Builtin::NumWorkgroups:
        return "nwg_";
      case Builtin::WorkgroupSize:
        return "1u";
    }
    return "0u";
  }
  std::string global_id() const override { return "wg_"; }
  std::string grid_stride() const override { return "nwg_"; }
  std::string for_grid(const std::string& var, const std::string& count,
                       int unroll) const override {
    // Contiguous ranges: vectorised by the compiler (see grid_prefix).
    return absl::StrCat("for (uint ", var, " = part_(", count, ", wg_, nwg_); ", var, " < part_(",
                        count, ", wg_ + 1u, nwg_); ++", var, ") {", unroll > 1 ? " { {" : "");
  }
  // Rows hold loops of their own (not vectorised at this level). The bound stated inside lets
  // the compiler see that index arithmetic within the row does not wrap, so the row's loops
  // vectorise as contiguous accesses.
  std::string for_rows(const std::string& var, const std::string& count) const override {
    return absl::StrCat("for (uint ", var, " = part_(", count, ", wg_, nwg_); ", var, " < part_(",
                        count, ", wg_ + 1u, nwg_); ++", var, ") { if (", var, " >= ", count,
                        ") __builtin_unreachable();");
  }
  // Max and min with NaN winning (as the reference), in the fewest vector operations.
  std::string nan_minmax(bool is_max, CType t, const std::string& a,
                         const std::string& b) const override {
    return absl::StrCat("((", a, is_max ? " > " : " < ", b, " || __builtin_isnan(", a, ")) ? ", a,
                        " : ", b, ")");
  }
  // One thread per workgroup: the step is the row element, and the loop ends at the row's
  // length (no step past it, so the loop vectorises like any other lanes loop).
  std::string for_cached_lanes(const std::string& var, const std::string& step,
                               const std::string& start, const std::string& count,
                               int) const override {
    return absl::StrCat("for (uint ", step, " = ", start.empty() ? "0u" : start, "; ", step, " < ",
                        count, "; ++", step, ") { uint ", var, " = ", step, "; {");
  }
  // The row's accumulation vectorised: partial results per lane, combined after the loop (sums
  // in another order than one thread's, as every GPU's workgroup reduction does).
  // Only a reduction's accumulation is declared (GCC does not reorder floating-point sums on
  // its own); other loops are left to the compiler's own analysis (see for_grid). An
  // arg-reduction's loop carries its index along and stays scalar. Loops over a row cached in
  // per-thread arrays end at the row's length too (for_cached_lanes).
  // No iteration of a grid loop writes what another reads (a pointwise kernel's output takes an
  // input's buffer only when every thread reads that input at the element it writes), so the
  // compiler may vectorise without run-time overlap checks and through index arithmetic. Not
  // where an index is clamped (a select between unsigned indices, as padding does): GCC 12 -O3
  // vectorised such a gather wrongly under `ivdep` (lanes read the wrong element; the training
  // fuzz's program 9 caught it) and is right without it.
  std::string grid_prefix(const KernelDesc& k, std::span<const Stmt> loop) const override {
    return index_math(k, loop, /*division=*/false) ? "" : "_Pragma(\"GCC ivdep\") ";
  }
  // GCC 12 also miscompiles (or fails on) such loops when their index arithmetic divides
  // (directly or by a multiply-high), takes remainders of or clamps (selects between) unsigned
  // indices: those stay scalar.
  // A Reduce with code kPlainExtreme accumulates max/min by the plain comparison (GCC 12 leaves
  // a loop with the declared em_max and another reduction scalar); its kernel tracks NaN
  // separately.
  std::string lanes_prefix(const KernelDesc& k, std::span<const Stmt> loop,
                           std::span<const Stmt> after) const override {
    // (The loop's own bounds are not index arithmetic of its body: a chunk of a row ends at
    // a clamped index.)
    if (after.empty() || index_math(k, loop.subspan(1), /*division=*/true)) return "";
    std::string clauses;
    for (const Stmt& r : after) {
      if (r.op != SOp::Reduce || r.type == CType::Bool) return "";
      const char* op = nullptr;
      const bool floating = r.type == CType::Float || r.type == CType::Double;
      const bool plain = !floating || r.code == kPlainExtreme;
      switch (r.fn) {
        case ir::ReduceFn::Sum:
          op = "+";
          break;
        case ir::ReduceFn::Prod:
          op = "*";
          break;
        case ir::ReduceFn::Max:
          op = plain ? "max" : "em_max";
          break;
        case ir::ReduceFn::Min:
          op = plain ? "min" : "em_min";
          break;
        default:
          return "";
      }
      absl::StrAppend(&clauses, clauses.empty() ? "" : " ", "reduction(", op, ":x", r.var, ")");
    }
    return absl::StrCat("_Pragma(\"omp simd ", clauses, "\") ");
  }
  // Whether the loop's integer arithmetic selects between values (or, with `division`, divides
  // or takes remainders).
  static bool index_math(const KernelDesc& k, std::span<const Stmt> loop, bool division) {
    std::vector<int> stack;
    std::vector<char> seen(k.exprs.size(), 0);
    for (const Stmt& st : loop) {
      for (int e : {st.expr, st.index}) {
        if (e >= 0) stack.push_back(e);
      }
    }
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (seen[id]) continue;
      seen[id] = 1;
      const Expr& e = k.exprs[id];
      if (e.type == CType::Uint || e.type == CType::Int) {
        // (A select between two constants is a flag's value, e.g. a carry: not a clamp.)
        if (e.op == XOp::Select &&
            !(k.exprs[e.args[1]].op == XOp::Const && k.exprs[e.args[2]].op == XOp::Const))
          return true;
        if (division && e.op == XOp::Binary) {
          auto fn = static_cast<ir::BinaryFn>(e.imm);
          if (fn == ir::BinaryFn::Div || fn == ir::BinaryFn::Rem) return true;
        }
        // A division by a size, emitted as a multiply-high and shifts (Emitter::divide_by_fixed).
        if (division && e.op == XOp::MulHi) return true;
      }
      for (int a : e.args) stack.push_back(a);
    }
    return false;
  }
  bool integer_division_traps() const override { return true; }
  std::string barrier() const override { return ""; }
  std::string fma(CType t, const std::string& a, const std::string& b,
                  const std::string& c) const override {
    return absl::StrCat(t == CType::Float ? "__builtin_fmaf(" : "__builtin_fma(", a, ", ", b, ", ",
                        c, ")");
  }
  std::string infinity(CType t, bool negative) const override {
    std::string inf = t == CType::Double ? "__builtin_inf()" : "__builtin_inff()";
    return negative ? "(-" + inf + ")" : inf;
  }
  std::string quantize(DType t, const std::string& a) const override {
    if (t == DType::F16) return "h2f(f2h(" + a + "))";
    return "bf2f(uint16_t(f2bf(" + a + ")))";
  }
  // Kernels for the CPU never ask for 4-element accesses (the pointwise family's CPU variant
  // is scalar: the compiler vectorises contiguous loops itself).
  std::string vector_type(CType) const override { return "void"; }
  std::string load_vec(const KernelDesc& k, int, const std::string&) const override {
    return "/* no vector loads on the CPU */";
  }
  std::string load(const KernelDesc& k, int buffer, const std::string& index) const override {
    std::string e = absl::StrCat("b", buffer, "[", index, "]");
    switch (k.buffers[buffer].dtype) {
      case DType::F16:
        return "h2f(" + e + ")";
      case DType::BF16:
        return "bf2f(" + e + ")";
      case DType::U8:
        return "uint(" + e + ")";
      case DType::Bool:
        return "(" + e + " != 0)";
      default:
        return e;
    }
  }
  std::string store(const KernelDesc& k, int buffer, const std::string& index,
                    const std::string& value) const override {
    std::string v;
    switch (k.buffers[buffer].dtype) {
      case DType::F16:
        v = "f2h(" + value + ")";
        break;
      case DType::BF16:
        v = "uint16_t(f2bf(" + value + "))";
        break;
      case DType::U8:
        v = "uint8_t(" + value + ")";
        break;
      case DType::Bool:
        v = "uint8_t(" + value + " ? 1 : 0)";
        break;
      default:
        v = value;
    }
    return absl::StrCat("b", buffer, "[", index, "] = ", v);
  }
  // A workgroup of one thread already holds the whole reduction.
  std::string reduce(const KernelDesc&, const Stmt&) const override { return ""; }
  std::string error(const Stmt& s, const std::string& value, const std::string& limit,
                    const std::string& value_hi) const override {
    return absl::StrCat("error_(E, ", s.code, "u, uint(", value, "), uint(", limit, "), uint(",
                        value_hi, "));");
  }
  std::string math(UnaryFn fn, CType t, const std::string& a) const override {
    bool dbl = t == CType::Double;
    // Instructions through the compiler's built-ins.
    auto f = [&](const char* name) {
      return absl::StrCat("__builtin_", name, dbl ? "" : "f", "(", a, ")");
    };
    auto lib = [&](const char* name) { return absl::StrCat(name, dbl ? "" : "f", "(", a, ")"); };
    auto standin = [&](const char* name) {
      return dbl ? lib(name) : absl::StrCat(name, "_f(", a, ")");
    };
    switch (fn) {
      case UnaryFn::Abs:
        return f("fabs");
      case UnaryFn::Sqrt:
        return f("sqrt");
      case UnaryFn::Floor:
        return f("floor");
      case UnaryFn::Ceil:
        return f("ceil");
      case UnaryFn::Round:
        return f("rint");
      case UnaryFn::IsNan:
        return absl::StrCat("__builtin_isnan(", a, ")");
      case UnaryFn::IsInf:
        return absl::StrCat("__builtin_isinf(", a, ")");
      // f32: the stand-ins the GPUs use (written once, jit/codegen/math_standins.h) on exp_f
      // and log_f; f64 (and cosh): libm.
      case UnaryFn::Exp:
        return standin("exp");
      case UnaryFn::Log:
        return standin("log");
      case UnaryFn::Log1p:
        return standin("log1p");
      case UnaryFn::Sin:
        return standin("sin");
      case UnaryFn::Cos:
        return standin("cos");
      case UnaryFn::Tan:
        return standin("tan");
      case UnaryFn::Tanh:
        return standin("tanh");
      case UnaryFn::Sinh:
        return standin("sinh");
      case UnaryFn::Cosh:
        return lib("cosh");
      case UnaryFn::Erf:
        return dbl ? lib("erf") : absl::StrCat("erf_c(", a, ")");
      default:
        return a;
    }
  }

 private:
  const KernelDesc* k_;
  int index_;
};

}  // namespace

bool cpu_stream_stores() {
  static const bool enabled = [] {
    const char* env = std::getenv("EMBER_CPU_STREAM");
    return env == nullptr || std::string(env) != "0";
  }();
  return enabled;
}

std::string cpp_entry(const KernelDesc& k, int index) {
  std::string entry = absl::StrCat("ember_k", index, "_");
  for (char c : k.name) entry += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return entry;
}

std::string render_cpp(const std::vector<const KernelDesc*>& kernels) {
  std::vector<int> all(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) all[i] = static_cast<int>(i);
  return render_cpp(kernels, all);
}

std::string render_cpp(const std::vector<const KernelDesc*>& kernels,
                       const std::vector<int>& which) {
  std::string s = kHeader;
  s += kMathStandins;
  for (int i : which) {
    if (kernels[i]->host) continue;
    s += render(*kernels[i], Cpp(*kernels[i], i));
  }
  return s;
}

}  // namespace ember::jit
