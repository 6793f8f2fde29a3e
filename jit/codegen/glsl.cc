#include "jit/codegen/glsl.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "jit/codegen/glsl_f64_math.h"
#include "jit/codegen/helpers.h"
#include "jit/codegen/math_standins.h"
#include "jit/codegen/render.h"
#include "jit/codegen/spirv_aliased.h"

namespace ember::jit {
namespace {

using ir::UnaryFn;

std::string storage_type(DType t) {
  switch (t) {
    case DType::F32:
      return "float";
    case DType::F16:
      return "float16_t";
    case DType::BF16:
      return "uint16_t";
    case DType::F64:
      return "double";
    case DType::I32:
      return "int";
    case DType::I64:
      return "int64_t";
    case DType::U8:
      return "uint8_t";
    case DType::Bool:
      return "uint8_t";
  }
  return "float";
}

// Helpers for each arithmetic type a kernel uses; "T" is replaced by the type name, "POW(a, b)"
// by the power of a positive base (GLSL's pow is float-only).
constexpr const char* kFloatHelpers = R"(
T fpow_T(T a, T b) {
  if (b == T(0) || a == T(1)) return T(1);
  if (a == T(-1) && isinf(b)) return T(1);
  if (a == T(0)) return b > T(0) ? T(0) : T(1) / T(0);
  if (a > T(0)) return POW(a, b);
  if (floor(b) != b) return T(0) / T(0);
  T r = POW(-a, b);
  return (mod(b, T(2)) == T(1)) ? -r : r;
}
)";

// The names jit/math_standins.h's shared text is written in, then that text; round_f16 is
// GLSL's own (CUDA converts with an instruction).
constexpr const char* kStandinNames = R"(
#define EM_FN
#define EM_F(x) x
#define TWO_PI_D 6.283185307179586lf
#define EXPF exp
#define LOGF log
#define SINF sin
#define COSF cos
#define TANF tan
#define SINHF sinh
#define FMAF fma
#define ABSF abs
#define SQRTF sqrt
#define FLOORD floor
#define F2U floatBitsToUint
#define MULHI mulhi_u
uint mulhi_u(uint a, uint b) { uint hi, lo; umulExtended(a, b, hi, lo); return hi; }
)";

constexpr const char* kCommonHelpers = R"(
// f32 rounded to the nearest f16 (ties to even) in integer arithmetic: drivers fold a
// float -> half -> float conversion pair away (seen on NVIDIA), which would skip the rounding.
float round_f16(float f) {
  uint u = floatBitsToUint(f);
  uint sign = u & 0x80000000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return f;                                       // inf, NaN
  if (a >= 0x477ff000u) return uintBitsToFloat(sign | 0x7f800000u);     // rounds past 65504
  if (a < 0x38800000u) {                                                // f16 subnormal range
    float q = roundEven(uintBitsToFloat(a) * 16777216.0) * 5.9604644775390625e-08;
    return uintBitsToFloat(sign | floatBitsToUint(q));
  }
  a = (a + 0x0fffu + ((a >> 13) & 1u)) & ~0x1fffu;                      // keep 10 mantissa bits
  return uintBitsToFloat(sign | a);
}
)";

class Glsl final : public Dialect {
 public:
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

  std::string prelude(const KernelDesc& k) const override {
    std::string s =
        "#version 450\n"
        "#extension GL_EXT_shader_explicit_arithmetic_types : require\n"
        "#extension GL_EXT_shader_16bit_storage : require\n"
        "#extension GL_EXT_shader_8bit_storage : require\n"
        "#extension GL_EXT_control_flow_attributes : require\n"
        "// ember kernel: " +
        k.name +
        "\n"
        "layout(local_size_x_id = 0) in;\n";
    if (k.buffers_may_alias) s += kAliasedBuffersMarker;
    if (k.push_params()) {
      absl::StrAppend(&s, "layout(push_constant) uniform Params { uint P[",
                      std::max(1, k.num_params), "]; };\n");
    } else {
      s += "layout(std430, set = 0, binding = 0) readonly buffer Params { uint P[]; };\n";
    }
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      std::string elem =
          k.buffers[i].vec4 ? vector_storage(k.buffers[i].dtype) : storage_type(k.buffers[i].dtype);
      // An input an output may be written over is not read-only memory (see spirv_aliased.h).
      bool readonly = !k.buffers[i].written && !k.buffers_may_alias;
      absl::StrAppend(&s, "layout(std430, set = 0, binding = ", i + 1, ") ",
                      readonly ? "readonly " : "", "buffer B", i, " { ", elem, " b", i, "[]; };\n");
    }
    if (k.uses_errors) {
      absl::StrAppend(&s, "layout(std430, set = 0, binding = ", k.buffers.size() + 1,
                      ") buffer Errors { uint E[]; };\n");
    }
    for (size_t i = 0; i < k.shared.size(); ++i) {
      // Only CUDA's copy-engine tiles have dynamic shared memory.
      if (k.shared[i].size == kDynamicShared) throw std::logic_error("dynamic shared memory");
      absl::StrAppend(&s, "shared ", type(k.shared[i].type), " sh", i, "[", k.shared[i].size,
                      "];\n");
    }
    std::set<CType> reduce_types, used;
    bool arg = false;
    for (const Stmt& st : k.body) {
      if (st.op == SOp::Reduce || st.op == SOp::ArgReduce) reduce_types.insert(st.type);
      arg = arg || st.op == SOp::ArgReduce;
    }
    for (const Expr& e : k.exprs) used.insert(e.type);
    for (CType t : reduce_types) {
      absl::StrAppend(&s, "shared ", type(t), " red_", type(t), "[gl_WorkGroupSize.x];\n");
    }
    if (arg) s += "shared uint red_index[gl_WorkGroupSize.x];\n";
    s += kStandinNames;
    s += kMathStandins;
    s += kCommonHelpers;
    for (CType t : {CType::Float, CType::Double}) {
      if (used.count(t)) {
        if (t == CType::Double) s += kGlslDoubleMath;
        s += absl::StrReplaceAll(
            kFloatHelpers, {{"T", type(t)}, {"POW", t == CType::Double ? "pow_pos_d" : "pow"}});
        s += instantiate(kFloatRemainder, type(t), "");
      }
    }
    for (CType t : {CType::Int, CType::Int64}) {
      if (used.count(t)) s += instantiate(kIntHelpers, type(t), "");
    }
    return s;
  }

  std::string entry_begin(const KernelDesc&) const override { return "void main() {\n"; }
  std::string param(int slot) const override { return absl::StrCat("P[", slot, "]"); }
  std::string param_float(int slot) const override {
    return absl::StrCat("uintBitsToFloat(P[", slot, "])");
  }
  std::string param_double(int slot) const override {
    return absl::StrCat("packDouble2x32(uvec2(P[", slot, "], P[", slot + 1, "]))");
  }
  std::string param_int64(int slot) const override {
    return absl::StrCat("int64_t(packUint2x32(uvec2(P[", slot, "], P[", slot + 1, "])))");
  }
  std::string builtin(Builtin b) const override {
    switch (b) {
      case Builtin::LocalId:
        return "gl_LocalInvocationID.x";
      case Builtin::WorkgroupId:
        return "gl_WorkGroupID.x";
      case Builtin::NumWorkgroups:
        return "gl_NumWorkGroups.x";
      case Builtin::WorkgroupSize:
        return "gl_WorkGroupSize.x";
    }
    return "0u";
  }
  std::string global_id() const override { return "gl_GlobalInvocationID.x"; }
  std::string grid_stride() const override { return "(gl_NumWorkGroups.x * gl_WorkGroupSize.x)"; }
  std::string barrier() const override { return "barrier();"; }
  std::string unroll() const override { return "[[unroll]] "; }
  // `precise` (SPIR-V NoContraction): NVIDIA's compiler otherwise fuses a multiply and an add
  // in one kernel and not in another that recomputes the same value.
  std::string let_qualifier(CType t) const override {
    return t == CType::Float || t == CType::Double ? "precise " : "";
  }
  std::string infinity(CType t, bool negative) const override {
    std::string inf = t == CType::Double ? "double(uintBitsToFloat(0x7f800000u))"
                                         : "uintBitsToFloat(0x7f800000u)";
    return negative ? "(-" + inf + ")" : inf;
  }

  std::string quantize(DType t, const std::string& a) const override {
    if (t == DType::F16) return "round_f16(" + a + ")";
    return "uintBitsToFloat(f2bf(" + a + ") << 16)";
  }

  static std::string vector_storage(DType t) { return t == DType::I32 ? "ivec4" : "vec4"; }
  std::string vector_type(CType t) const override {
    switch (t) {
      case CType::Int:
        return "ivec4";
      case CType::Uint:
        return "uvec4";
      case CType::Double:
        return "dvec4";
      case CType::Bool:
        return "bvec4";
      default:
        return "vec4";
    }
  }
  std::string load_vec(const KernelDesc&, int buffer, const std::string& index) const override {
    return absl::StrCat("b", buffer, "[", index, "]");
  }

  std::string load(const KernelDesc& k, int buffer, const std::string& index) const override {
    // Scalar access to a vec4-declared buffer picks the lane dynamically.
    std::string e = k.buffers[buffer].vec4
                        ? absl::StrCat("b", buffer, "[(", index, ") >> 2u][(", index, ") & 3u]")
                        : absl::StrCat("b", buffer, "[", index, "]");
    switch (k.buffers[buffer].dtype) {
      case DType::F16:
        return "float(" + e + ")";
      case DType::BF16:
        return "uintBitsToFloat(uint(" + e + ") << 16)";
      case DType::U8:
        return "uint(" + e + ")";
      case DType::Bool:
        return "(" + e + " != uint8_t(0))";
      default:
        return e;
    }
  }

  std::string store(const KernelDesc& k, int buffer, const std::string& index,
                    const std::string& value) const override {
    std::string v;
    if (k.buffers[buffer].vec4) return absl::StrCat("b", buffer, "[", index, "] = ", value);
    switch (k.buffers[buffer].dtype) {
      case DType::F16:
        v = "float16_t(" + value + ")";
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

  std::string reduce(const KernelDesc&, const Stmt& s) const override {
    std::string t = type(s.type);
    std::string arr = "red_" + t;
    std::string x = absl::StrCat("x", s.var);
    std::string lid = "gl_LocalInvocationID.x";
    std::string a = arr + "[" + lid + "]", b = arr + "[" + lid + " + s_]";
    std::string step;
    bool floating = s.type == CType::Float || s.type == CType::Double;
    auto nan = [&](const std::string& v) { return floating ? "isnan(" + v + ")" : "false"; };
    if (s.op == SOp::ArgReduce) {
      const char* cmp = s.fn == ir::ReduceFn::Max ? ">" : "<";
      std::string ia = "red_index[" + lid + "]", ib = "red_index[" + lid + " + s_]";
      // Take b when it is more extreme, NaN over number, or equal with a smaller index.
      std::string take =
          absl::StrCat("(", b, " ", cmp, " ", a, ") || (", nan(b), " && !", nan(a), ") || ((", b,
                       " == ", a, " || (", nan(a), " && ", nan(b), ")) && ", ib, " < ", ia, ")");
      step = absl::StrCat("if (", take, ") { ", a, " = ", b, "; ", ia, " = ", ib, "; }");
      return absl::StrCat(a, " = ", x, "; ", ia, " = x", s.var2, "; barrier(); ",
                          "for (uint s_ = gl_WorkGroupSize.x / 2u; s_ > 0u; s_ >>= 1u) { if (", lid,
                          " < s_) { ", step, " } barrier(); } ", x, " = ", arr, "[0]; x", s.var2,
                          " = red_index[0]; barrier();");
    }
    switch (s.fn) {
      case ir::ReduceFn::Sum:
        step = a + " = " + a + " + " + b + ";";
        break;
      case ir::ReduceFn::Prod:
        step = a + " = " + a + " * " + b + ";";
        break;
      default: {
        const char* cmp = s.fn == ir::ReduceFn::Max ? ">" : "<";
        step = absl::StrCat("if (", b, " ", cmp, " ", a, " || (", nan(b), " && !", nan(a), ")) ", a,
                            " = ", b, ";");
      }
    }
    return absl::StrCat(a, " = ", x, "; barrier(); ",
                        "for (uint s_ = gl_WorkGroupSize.x / 2u; s_ > 0u; s_ >>= 1u) { if (", lid,
                        " < s_) { ", step, " } barrier(); } ", x, " = ", arr, "[0]; barrier();");
  }

  std::string error(const Stmt& s, const std::string& value, const std::string& limit,
                    const std::string& value_hi) const override {
    int bit = s.code - 1;
    return absl::StrCat("atomicOr(E[", 4 + bit / 32, "], ", 1u << (bit % 32),
                        "u); if (atomicCompSwap(E[0], 0u, ", s.code, "u) == 0u) { E[1] = ", value,
                        "; E[2] = ", limit, "; E[3] = ", value_hi, "; }");
  }

  // NaN winning: b replaces a when it compares greater (smaller) or is the only NaN. Written
  // with any/all instead of GLSL's short-circuit || and &&, which glslang may lower to
  // branches around the isnan calls (softmax on the H100's Vulkan driver: 1670 GB/s with
  // || and && in one expression, run 38; 2890 GB/s with any/all, run 39).
  std::string nan_minmax(bool is_max, CType t, const std::string& a,
                         const std::string& b) const override {
    return absl::StrCat("(any(bvec2(", b, is_max ? " > " : " < ", a, ", all(bvec2(isnan(", b,
                        "), !isnan(", a, "))))) ? ", b, " : ", a, ")");
  }

  std::string math(UnaryFn fn, CType t, const std::string& a) const override {
    // GLSL has only float transcendentals: doubles call the f64 versions of glsl_f64_math.h.
    bool dbl = t == CType::Double;
    auto f = [&](const char* float_fn, const char* double_fn) {
      return absl::StrCat(dbl ? double_fn : float_fn, "(", a, ")");
    };
    switch (fn) {
      case UnaryFn::Abs:
        return absl::StrCat("abs(", a, ")");
      case UnaryFn::Sqrt:
        return absl::StrCat("sqrt(", a, ")");
      case UnaryFn::Floor:
        return absl::StrCat("floor(", a, ")");
      case UnaryFn::Ceil:
        return absl::StrCat("ceil(", a, ")");
      case UnaryFn::Round:
        return absl::StrCat("roundEven(", a, ")");
      case UnaryFn::IsNan:
        return absl::StrCat("isnan(", a, ")");
      case UnaryFn::IsInf:
        return absl::StrCat("isinf(", a, ")");
      case UnaryFn::Exp:
        return f("exp", "exp_d");
      case UnaryFn::Log:
        return f("log", "log_d");
      case UnaryFn::Log1p:
        return f("log1p_f", "log1p_d");
      case UnaryFn::Sin:
        return f("sin_f", "sin_d");
      case UnaryFn::Cos:
        return f("cos_f", "cos_d");
      case UnaryFn::Tan:
        return f("tan_f", "tan_d");
      case UnaryFn::Tanh:
        return f("tanh_f", "tanh_d");
      case UnaryFn::Sinh:
        return f("sinh_f", "sinh_d");
      case UnaryFn::Cosh:
        return f("cosh", "cosh_d");
      case UnaryFn::Erf:
        return f("erf_f", "erf_d");
      default:
        return a;
    }
  }
};

}  // namespace

std::string render_glsl(const KernelDesc& k) { return render(k, Glsl()); }

}  // namespace ember::jit
