#include "jit/codegen/cuda_source.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "jit/codegen/cuda_tensor_core.h"
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
      return "uint16_t";
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

// No headers: NVRTC provides the math built-ins; the integer types are spelled here.
constexpr const char* kTypes = R"(typedef unsigned int uint;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;
)";

constexpr const char* kCommonHelpers = R"(
// max/min with a NaN operand winning: one instruction from sm_80 on.
__device__ __forceinline__ float fmax_nan(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r;
#else
  return (isnan(a) || isnan(b)) ? a + b : fmaxf(a, b);
#endif
}
__device__ __forceinline__ float fmin_nan(float a, float b) {
#if __CUDA_ARCH__ >= 800
  float r; asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r;
#else
  return (isnan(a) || isnan(b)) ? a + b : fminf(a, b);
#endif
}
__device__ __forceinline__ float h2f(uint16_t h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ uint16_t f2h(float f) { uint16_t h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float bf2f(uint16_t h) { return __uint_as_float(uint(h) << 16); }
)";

// The names jit/math_standins.h's shared text is written in (the hardware exp2-based __expf, as
// GLSL's exp on the same GPU).
constexpr const char* kStandinNames = R"(
#define EM_FN __device__ __forceinline__
#define EM_F(x) x##f
#define TWO_PI_D 6.283185307179586
#define EXPF __expf
#define LOGF logf
#define SINF sinf
#define COSF cosf
#define TANF tanf
#define SINHF sinhf
#define FMAF fmaf
#define ABSF fabsf
#define SQRTF sqrtf
#define FLOORD floor
#define F2U __float_as_uint
#define MULHI __umulhi
)";

// "T" is replaced by the type name.
constexpr const char* kFloatHelpers = R"(
__device__ __forceinline__ T fpow_T(T a, T b) { return pow(a, b); }
)";

class Cuda final : public Dialect {
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

  std::string nan_minmax(bool is_max, CType t, const std::string& a,
                         const std::string& b) const override {
    if (t != CType::Float) return "";
    return absl::StrCat(is_max ? "fmax_nan(" : "fmin_nan(", a, ", ", b, ")");
  }

  std::string prelude(const KernelDesc& k) const override {
    std::string s = absl::StrCat("// ember kernel: ", k.name, "\n", kTypes, kCommonHelpers,
                                 kStandinNames, kMathStandins);
    std::set<CType> used;
    for (const Expr& e : k.exprs) used.insert(e.type);
    for (CType t : {CType::Float, CType::Double}) {
      if (used.count(t)) {
        s += absl::StrReplaceAll(kFloatHelpers, {{"T", type(t)}});
        s += instantiate(kFloatRemainder, type(t), "__device__ __forceinline__");
      }
    }
    for (CType t : {CType::Int, CType::Int64}) {
      if (used.count(t)) s += instantiate(kIntHelpers, type(t), "__device__ __forceinline__");
    }
    s += tensor_core_helpers(k);
    absl::StrAppend(&s, "struct Params { uint p[", std::max(1, k.num_params), "]; };\n");
    return s;
  }

  std::string entry_begin(const KernelDesc& k) const override {
    std::string s = absl::StrCat(
        "extern \"C\" __global__ void __launch_bounds__(", k.workgroup_size,
        k.min_workgroups_per_sm > 0 ? absl::StrCat(", ", k.min_workgroups_per_sm) : "", ") ",
        k.cluster_size > 1 ? absl::StrCat("__cluster_dims__(", k.cluster_size, ", 1, 1) ") : "",
        cuda_entry(k), "(const Params P_");
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      // __restrict__ (read-only loads through the non-coherent cache) unless an output may take
      // the buffer of an input that dies in this kernel.
      absl::StrAppend(&s, ", ", k.buffers[i].written ? "" : "const ",
                      storage_type(k.buffers[i].dtype), "*",
                      k.buffers_may_alias ? "" : " __restrict__", " b", i);
    }
    if (k.uses_errors) s += ", uint* E";
    for (int i = 0; i < k.tensor_maps; ++i)
      absl::StrAppend(&s, ", const __grid_constant__ TensorMap tm", i);
    s += ") {\n";
    // The block size as a compile-time constant (launches always use it), as GLSL's
    // gl_WorkGroupSize: loop strides become immediates.
    absl::StrAppend(&s, "  constexpr uint WG_ = ", k.workgroup_size, "u;\n");
    for (size_t i = 0; i < k.shared.size(); ++i) {
      if (k.shared[i].size == kDynamicShared) {
        // Every extern __shared__ array starts at the dynamic shared memory (the tiles' own).
        absl::StrAppend(&s, "  extern __shared__ __align__(128) unsigned char dyn_sh", i, "[];\n  ",
                        type(k.shared[i].type), "* sh", i, " = reinterpret_cast<",
                        type(k.shared[i].type), "*>(dyn_sh", i, ");\n");
        continue;
      }
      // 16-byte aligned, so runs of four elements load as one vector.
      absl::StrAppend(&s, "  __shared__ __align__(16) ", type(k.shared[i].type), " sh", i, "[",
                      k.shared[i].size, "];\n");
    }
    std::set<CType> reduce_types;
    bool arg = false;
    for (const Stmt& st : k.body) {
      if (st.op == SOp::Reduce || st.op == SOp::ArgReduce) reduce_types.insert(st.type);
      arg = arg || st.op == SOp::ArgReduce;
    }
    for (CType t : reduce_types) {
      absl::StrAppend(&s, "  __shared__ ", type(t), " red_", type(t), "[", k.workgroup_size,
                      "];\n");
    }
    if (arg) absl::StrAppend(&s, "  __shared__ uint red_index[", k.workgroup_size, "];\n");
    return s;
  }

  std::string param(int slot) const override { return absl::StrCat("P_.p[", slot, "]"); }
  std::string param_float(int slot) const override {
    return absl::StrCat("__uint_as_float(P_.p[", slot, "])");
  }
  std::string param_double(int slot) const override {
    return absl::StrCat("__hiloint2double(int(P_.p[", slot + 1, "]), int(P_.p[", slot, "]))");
  }
  std::string param_int64(int slot) const override {
    return absl::StrCat("int64_t((uint64_t(P_.p[", slot + 1, "]) << 32) | uint64_t(P_.p[", slot,
                        "]))");
  }
  std::string builtin(Builtin b) const override {
    switch (b) {
      case Builtin::LocalId:
        return "threadIdx.x";
      case Builtin::WorkgroupId:
        return "blockIdx.x";
      case Builtin::NumWorkgroups:
        return "gridDim.x";
      case Builtin::WorkgroupSize:
        return "WG_";
    }
    return "0u";
  }
  std::string global_id() const override { return "(blockIdx.x * WG_ + threadIdx.x)"; }
  std::string grid_stride() const override { return "(gridDim.x * WG_)"; }
  std::string barrier() const override { return "__syncthreads();"; }
  std::string unroll() const override { return "\n#pragma unroll\n"; }
  // Contraction is off for the whole program (NVRTC's --fmad=false): fmaf asks for it.
  std::string fma(CType t, const std::string& a, const std::string& b,
                  const std::string& c) const override {
    return (t == CType::Float ? "fmaf(" : "fma(") + a + ", " + b + ", " + c + ")";
  }
  std::string infinity(CType t, bool negative) const override {
    std::string inf = t == CType::Double ? "__longlong_as_double(0x7ff0000000000000LL)"
                                         : "__int_as_float(0x7f800000)";
    return negative ? "(-" + inf + ")" : inf;
  }
  std::string quantize(DType t, const std::string& a) const override {
    if (t == DType::F16) return "h2f(f2h(" + a + "))";
    return "bf2f(f2bf(" + a + "))";
  }

  static std::string vector_storage(DType t) { return t == DType::I32 ? "int4" : "float4"; }
  std::string vector_type(CType t) const override {
    switch (t) {
      case CType::Int:
        return "int4";
      case CType::Uint:
        return "uint4";
      case CType::Double:
        return "double4";
      default:
        return "float4";
    }
  }
  std::string make_vec(CType t, const std::string& a, const std::string& b, const std::string& c,
                       const std::string& d) const override {
    return absl::StrCat("make_", vector_type(t), "(", a, ", ", b, ", ", c, ", ", d, ")");
  }
  std::string load_vec(const KernelDesc& k, int buffer, const std::string& index) const override {
    return absl::StrCat("reinterpret_cast<const ", vector_storage(k.buffers[buffer].dtype), "*>(b",
                        buffer, ")[", index, "]");
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
    if (k.buffers[buffer].vec4) {
      return absl::StrCat("reinterpret_cast<", vector_storage(k.buffers[buffer].dtype), "*>(b",
                          buffer, ")[", index, "] = ", value);
    }
    std::string v;
    switch (k.buffers[buffer].dtype) {
      case DType::F16:
        v = "f2h(" + value + ")";
        break;
      case DType::BF16:
        v = "f2bf(" + value + ")";
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

  // Warp shuffles, then one shared slot per warp and a last shuffle round in warp 0: two
  // barriers instead of a shared-memory tree's log2(block) rounds.
  std::string reduce(const KernelDesc& k, const Stmt& s) const override {
    std::string t = type(s.type);
    std::string arr = "red_" + t;
    std::string x = absl::StrCat("x", s.var);
    bool floating = s.type == CType::Float || s.type == CType::Double;
    bool arg = s.op == SOp::ArgReduce;
    auto nan = [&](const std::string& v) { return floating ? "isnan(" + v + ")" : "false"; };
    const char* cmp = s.fn == ir::ReduceFn::Max ? ">" : "<";
    // Folds (w, wi) into (v, vi).
    std::string fold;
    if (arg) {
      fold = absl::StrCat("if ((w ", cmp, " v) || (", nan("w"), " && !", nan("v"),
                          ") || ((w == v || (", nan("v"), " && ", nan("w"),
                          ")) && wi < vi)) { v = w; vi = wi; }");
    } else if (s.fn == ir::ReduceFn::Sum) {
      fold = "v = v + w;";
    } else if (s.fn == ir::ReduceFn::Prod) {
      fold = "v = v * w;";
    } else if (s.type == CType::Float) {
      fold = s.fn == ir::ReduceFn::Max ? "v = fmax_nan(v, w);" : "v = fmin_nan(v, w);";
    } else {
      fold = absl::StrCat("if (w ", cmp, " v || (", nan("w"), " && !", nan("v"), ")) v = w;");
    }
    std::string shuffle =
        absl::StrCat(t, " w = __shfl_xor_sync(0xffffffffu, v, o); ",
                     arg ? "uint wi = __shfl_xor_sync(0xffffffffu, vi, o); " : "", fold);
    uint32_t warps = std::max(1u, k.workgroup_size / 32);
    std::string idx = arg ? absl::StrCat(" uint vi = x", s.var2, ";") : "";
    std::string store_idx = arg ? " red_index[warp_] = vi;" : "";
    std::string load_idx = arg ? " vi = red_index[threadIdx.x & (W_ - 1u)];" : "";
    std::string result_idx = arg ? absl::StrCat(" x", s.var2, " = red_index[0];") : "";
    std::string lane0_idx = arg ? " red_index[0] = vi;" : "";
    return absl::StrCat(
        "{ const uint W_ = ", warps, "u; ", t, " v = ", x, ";", idx,
        " for (int o = 16; o > 0; o >>= 1) { ", shuffle, " }",
        " uint warp_ = threadIdx.x >> 5; if ((threadIdx.x & 31u) == 0u) { ", arr, "[warp_] = v;",
        store_idx, " } __syncthreads();", " if (warp_ == 0u) { v = ", arr,
        "[threadIdx.x & (W_ - 1u)];", load_idx, " for (int o = int(W_ / 2u); o > 0; o >>= 1) { ",
        shuffle, " }", " if (threadIdx.x == 0u) { ", arr, "[0] = v;", lane0_idx, " } }",
        " __syncthreads(); ", x, " = ", arr, "[0];", result_idx, " __syncthreads(); }");
  }

  std::string error(const Stmt& s, const std::string& value, const std::string& limit,
                    const std::string& value_hi) const override {
    int bit = s.code - 1;
    return absl::StrCat("atomicOr(&E[", 4 + bit / 32, "], ", 1u << (bit % 32),
                        "u); if (atomicCAS(&E[0], 0u, ", s.code, "u) == 0u) { E[1] = ", value,
                        "; E[2] = ", limit, "; E[3] = ", value_hi, "; }");
  }

  std::string attention(const KernelDesc&, const Stmt& s,
                        const std::vector<std::string>& a) const override {
    return attention_call(s, a);
  }
  std::string lstm(const KernelDesc&, const Stmt& s,
                   const std::vector<std::string>& a) const override {
    return lstm_call(s, a);
  }
  std::string mma_tile(const KernelDesc&, const Stmt& s,
                       const std::vector<std::string>& a) const override {
    return tensor_core_call(MmaShape::unpack(s.code), absl::StrCat("b", s.buffer),
                            absl::StrCat("b", s.buffer2), a, absl::StrCat("x", s.var));
  }

  std::string math(UnaryFn fn, CType t, const std::string& a) const override {
    bool dbl = t == CType::Double;
    auto f = [&](const char* single, const char* twice) {
      return absl::StrCat(dbl ? twice : single, "(", a, ")");
    };
    switch (fn) {
      case UnaryFn::Abs:
        return f("fabsf", "fabs");
      case UnaryFn::Sqrt:
        return f("sqrtf", "sqrt");
      case UnaryFn::Floor:
        return f("floorf", "floor");
      case UnaryFn::Ceil:
        return f("ceilf", "ceil");
      case UnaryFn::Round:
        return f("rintf", "rint");
      case UnaryFn::IsNan:
        return absl::StrCat("isnan(", a, ")");
      case UnaryFn::IsInf:
        return absl::StrCat("isinf(", a, ")");
      case UnaryFn::Exp:  // the hardware exp2 in f32, as GLSL's exp on the same GPU
        return f("__expf", "exp");
      case UnaryFn::Log:
        return f("logf", "log");
      case UnaryFn::Log1p:
        return f("log1p_f", "log1p");
      case UnaryFn::Sin:
        return f("sin_f", "sin");
      case UnaryFn::Cos:
        return f("cos_f", "cos");
      case UnaryFn::Tan:
        return f("tan_f", "tan");
      case UnaryFn::Tanh:
        return f("tanh_f", "tanh");
      case UnaryFn::Sinh:
        return f("sinh_f", "sinh");
      case UnaryFn::Cosh:
        return f("coshf", "cosh");
      case UnaryFn::Erf:
        return f("erf_f", "erf");
      default:
        return a;
    }
  }
};

}  // namespace

std::string cuda_entry(const KernelDesc& k) {
  std::string entry = "ember_";
  for (char c : k.name) entry += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return entry;
}

std::string render_cuda(const KernelDesc& k) { return render(k, Cuda()); }

}  // namespace ember::jit
