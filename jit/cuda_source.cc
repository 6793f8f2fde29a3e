#include "jit/cuda_source.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "jit/helpers.h"
#include "jit/render.h"

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
__device__ __forceinline__ uint16_t f2bf(float f) {
  uint u = __float_as_uint(f);
  if (isnan(f)) return 0x7fc0u;
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ uint upow(uint base, uint e) { uint r = 1u; while (e > 0u) { if (e & 1u) r *= base; base *= base; e >>= 1u; } return r; }
__device__ float philox_sample(uint lo, uint hi, uint k0, uint k1, float a, float b, int dist) {
  uint c0 = lo, c1 = hi, c2 = 0u, c3 = 0u;
  for (int r = 0; r < 10; ++r) {
    uint hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    uint hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    uint n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  float u = float(c0 >> 8) * 5.9604644775390625e-08f;
  if (dist == 0) return a + (b - a) * u;
  if (dist == 1) {
    float u1 = (float(c0 >> 8) + 1.0f) * 5.9604644775390625e-08f;
    float u2 = float(c1 >> 8) * 5.9604644775390625e-08f;
    return a + b * sqrtf(-2.0f * logf(u1)) * cosf(6.283185307179586f * u2);
  }
  return u < a ? 1.0f : 0.0f;
}
)";

constexpr const char* kMmaHelpers = R"(
// Tensor-core block tile (mma.sync, sm_80 and later). Operands stream through a STAGES-deep
// cp.async pipeline into shared memory as RB-byte k-rows (K-major operands) or k-rows of the
// whole tile width (M/N-major ones), XOR-swizzled by 16-byte chunk so that ldmatrix reads of
// eight rows hit eight different bank groups. Out-of-range elements are zero-filled by the copy.
__device__ __forceinline__ uint smem_u32(const void* p) {
  uint64_t a; asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p)); return uint(a);
}
__device__ __forceinline__ void cp_async16(uint dst, const void* src, uint bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N));
}
template <bool TRANS> __device__ __forceinline__ void ldsm_x4(uint addr, uint* r) {
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
template <int KIND> __device__ __forceinline__ void mma_op(float* c, const uint* a, const uint* b) {
  if (KIND == 0)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if (KIND == 1)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// Byte offset of element (mn, k) of a staged tile ROWS (m or n) wide, ES-byte elements.
template <bool KMAJ, int ROWS, int ES, int RB>
__device__ __forceinline__ uint mma_elem(uint mn, uint k) {
  constexpr uint CE = 16 / ES;
  const uint swz = RB == 128 ? (mn & 7u) : ((mn >> 1) & 3u);
  if (KMAJ) return mn * uint(RB) + (((k / CE) ^ swz) << 4) + (k % CE) * ES;
  return k * uint(ROWS * ES) + ((((mn / CE) ^ (k & 7u))) << 4) + (mn % CE) * ES;
}
// Issues the copies of one stage of one operand: rows [mn0, mn0 + ROWS) by k-rows [k0, k0 + BK).
template <bool KMAJ, int ROWS, int ES, int THREADS, int RB>
__device__ __forceinline__ void mma_stage(uint dst, const char* base, uint ld, uint mn0, uint MN,
                                          uint k0, uint K) {
  constexpr uint CE = 16 / ES, CHUNKS = ROWS * RB / 16, KCHUNKS = RB / 16;
#pragma unroll
  for (uint i = 0; i < CHUNKS / THREADS; ++i) {
    uint q = threadIdx.x + i * THREADS;
    uint mn, k, bytes;
    if (KMAJ) {
      mn = mn0 + q / KCHUNKS;
      k = k0 + (q % KCHUNKS) * CE;
      bytes = (mn < MN && k < K) ? min(16u, (K - k) * ES) : 0u;
    } else {
      constexpr uint CPR = ROWS * ES / 16;
      k = k0 + q / CPR;
      mn = mn0 + (q % CPR) * CE;
      bytes = (mn < MN && k < K) ? min(16u, (MN - mn) * ES) : 0u;
    }
    const char* src = bytes ? base + (uint64_t(KMAJ ? mn : k) * ld + (KMAJ ? k : mn)) * ES : base;
    cp_async16(dst + mma_elem<KMAJ, ROWS, ES, RB>(mn - mn0, k - k0), src, bytes);
  }
}
__device__ __forceinline__ uint to_tf32(float x) {
  uint r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return r;
}
// Loads a warp's A and B fragments of k-step `ks` of the staged tile at shared address sa
// (A) and sb (B); g is the same tile's generic address (TF32's scalar loads).
template <int KIND, bool A_K, bool B_K, int BM, int BN, int MI, int NI, int RB>
__device__ __forceinline__ void mma_frags(uint sa, uint sb, const unsigned char* g, uint ks,
                                          uint wm, uint wn, uint (&af)[MI][4],
                                          uint (&bf)[NI][2]) {
  constexpr int ES = KIND == 2 ? 4 : 2;
  const uint lane = threadIdx.x & 31u;
  if (KIND != 2) {
    const uint j = lane >> 3, r = lane & 7u;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      uint m = wm + mi * 16 + (A_K ? (j & 1u) * 8 + r : (j & 1u) * 8);
      uint k = ks + (A_K ? (j >> 1) * 8 : (j >> 1) * 8 + r);
      ldsm_x4<!A_K>(sa + mma_elem<A_K, BM, ES, RB>(m, k), af[mi]);
    }
#pragma unroll
    for (int ni = 0; ni < NI; ni += 2) {
      uint n = wn + ni * 8 + (B_K ? (j >> 1) * 8 + r : (j >> 1) * 8);
      uint k = ks + (B_K ? (j & 1u) * 8 : (j & 1u) * 8 + r);
      uint t[4];
      ldsm_x4<!B_K>(sb + mma_elem<B_K, BN, ES, RB>(n, k), t);
      bf[ni][0] = t[0]; bf[ni][1] = t[1]; bf[ni + 1][0] = t[2]; bf[ni + 1][1] = t[3];
    }
  } else {
    const unsigned char* gb = g + (sb - sa);
    const uint gr = lane >> 2, t = lane & 3u;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      uint m = wm + mi * 16 + gr;
#pragma unroll
      for (int h = 0; h < 4; ++h) {
        uint e = mma_elem<A_K, BM, ES, RB>(m + (h & 1) * 8, ks + t + (h >> 1) * 4);
        af[mi][h] = to_tf32(*reinterpret_cast<const float*>(g + e));
      }
    }
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      uint n = wn + ni * 8 + gr;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint e = mma_elem<B_K, BN, ES, RB>(n, ks + t + h * 4);
        bf[ni][h] = to_tf32(*reinterpret_cast<const float*>(gb + e));
      }
    }
  }
}
// The k loop is software-pipelined twice over: global->shared copies run STAGES - 1 k-tiles
// ahead (cp.async), and shared->register fragments one k-step ahead (two fragment buffers), so
// the tensor cores never wait on the ldmatrix feeding them. The wait for the next k-tile's
// copies sits before the last k-step of the current one, whose mmas then cover the first
// fragment loads of the next.
template <int KIND, bool A_K, bool B_K, int WM, int WN, int MI, int NI, int STAGES, int RB>
__device__ __forceinline__ void mma_tile(const void* A, uint a_off, uint a_ld, const void* B,
                                         uint b_off, uint b_ld, uint M, uint N, uint K, uint m0,
                                         uint n0, float* acc) {
  constexpr int ES = KIND == 2 ? 4 : 2, BK = RB / ES, KS = KIND == 2 ? 8 : 16, STEPS = BK / KS;
  constexpr int BM = WM * MI * 16, BN = WN * NI * 8, THREADS = WM * WN * 32;
  constexpr uint A_BYTES = BM * RB, STAGE = (BM + BN) * RB;
  static_assert(STEPS % 2 == 0, "a k-tile's first step must use fragment buffer 0");
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * STAGE bytes
  const uint warp = threadIdx.x >> 5;
  const uint wm = warp / WN * (MI * 16), wn = warp % WN * (NI * 8);
  const char* a = (const char*)A + uint64_t(a_off) * ES;
  const char* b = (const char*)B + uint64_t(b_off) * ES;
  const uint s0 = smem_u32(smem);
#pragma unroll
  for (int i = 0; i < MI * NI * 4; ++i) acc[i] = 0.0f;
  const uint KT = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (uint(s) < KT) {
      mma_stage<A_K, BM, ES, THREADS, RB>(s0 + s * STAGE, a, a_ld, m0, M, s * BK, K);
      mma_stage<B_K, BN, ES, THREADS, RB>(s0 + s * STAGE + A_BYTES, b, b_ld, n0, N, s * BK, K);
    }
    cp_async_commit();
  }
  // TF32 fragments of 64 x 64 warp tiles do not fit twice in registers: one buffer, each
  // k-step loading its own fragments, the k-tile's wait at its start (TF32 4096 ran 7% slower
  // in the prefetching order, with its extra live registers: run 33 against run 34).
  constexpr int NB = KIND == 2 && MI * NI >= 32 ? 1 : 2;
  uint af[NB][MI][4], bf[NB][NI][2];
  if (NB == 2) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(s0, s0 + A_BYTES, smem, 0, wm, wn, af[0], bf[0]);
  }
  for (uint kt = 0; kt < KT; ++kt) {
    const uint stage = kt % STAGES, sa = s0 + stage * STAGE;
    const unsigned char* g = smem + stage * STAGE;
#pragma unroll
    for (int step = 0; step < STEPS; ++step) {
      const int cur = NB == 2 ? step & 1 : 0;
      if (NB == 1 && step == 0) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
      }
      if (step == 0) {
        // The stage read in the previous k-tile is free: every warp passed a barrier after its
        // last fragment load from it.
        const uint next = kt + STAGES - 1;
        if (next < KT) {
          const uint st = s0 + (next % STAGES) * STAGE;
          mma_stage<A_K, BM, ES, THREADS, RB>(st, a, a_ld, m0, M, next * BK, K);
          mma_stage<B_K, BN, ES, THREADS, RB>(st + A_BYTES, b, b_ld, n0, N, next * BK, K);
        }
        cp_async_commit();
      }
      if (NB == 1) {
        mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, step * KS, wm, wn,
                                                      af[0], bf[0]);
      } else if (step + 1 < STEPS) {
        mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, (step + 1) * KS, wm,
                                                      wn, af[cur ^ 1], bf[cur ^ 1]);
      } else if (kt + 1 < KT) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        const uint ns = (kt + 1) % STAGES, na = s0 + ns * STAGE;
        mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(na, na + A_BYTES, smem + ns * STAGE, 0, wm,
                                                      wn, af[cur ^ 1], bf[cur ^ 1]);
      }
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
          mma_op<KIND>(acc + (mi * NI + ni) * 4, af[cur][mi], bf[cur][ni]);
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the next tile of a grid-stride loop refills the stages
}
)";

bool uses_mma(const KernelDesc& k) {
  return std::any_of(k.body.begin(), k.body.end(),
                     [](const Stmt& s) { return s.op == SOp::MmaTile; });
}

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
    std::string s = absl::StrCat("// ember kernel: ", k.name, "\n", kTypes, kCommonHelpers);
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
    if (uses_mma(k)) s += kMmaHelpers;
    absl::StrAppend(&s, "struct Params { uint p[", std::max(1, k.num_params), "]; };\n");
    return s;
  }

  std::string entry_begin(const KernelDesc& k) const override {
    std::string s = absl::StrCat("extern \"C\" __global__ void __launch_bounds__(",
                                 k.workgroup_size, ") ", cuda_entry(k), "(const Params P_");
    for (size_t i = 0; i < k.buffers.size(); ++i) {
      // __restrict__ (read-only loads through the non-coherent cache) unless an output may take
      // the buffer of an input that dies in this kernel.
      absl::StrAppend(&s, ", ", k.buffers[i].written ? "" : "const ",
                      storage_type(k.buffers[i].dtype), "*",
                      k.buffers_may_alias ? "" : " __restrict__", " b", i);
    }
    if (k.uses_errors) s += ", uint* E";
    s += ") {\n";
    // The block size as a compile-time constant (launches always use it), as GLSL's
    // gl_WorkGroupSize: loop strides become immediates.
    absl::StrAppend(&s, "  constexpr uint WG_ = ", k.workgroup_size, "u;\n");
    for (size_t i = 0; i < k.shared.size(); ++i) {
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

  std::string error(const Stmt& s, const std::string& value,
                    const std::string& limit) const override {
    int bit = s.code - 1;
    return absl::StrCat("atomicOr(&E[", 3 + bit / 32, "], ", 1u << (bit % 32),
                        "u); if (atomicCAS(&E[0], 0u, ", s.code, "u) == 0u) { E[1] = ", value,
                        "; E[2] = ", limit, "; }");
  }

  std::string mma_tile(const KernelDesc&, const Stmt& s,
                       const std::vector<std::string>& a) const override {
    MmaShape m = MmaShape::unpack(s.code);
    return absl::StrCat("mma_tile<", static_cast<int>(m.kind), ", ", m.a_kmajor, ", ", m.b_kmajor,
                        ", ", m.warps_m, ", ", m.warps_n, ", ", m.frags_m, ", ", m.frags_n, ", ",
                        m.stages, ", ", m.row_bytes, ">(b", s.buffer, ", ", a[0], ", ", a[1], ", b",
                        s.buffer2, ", ", a[2], ", ", a[3], ", ", a[4], ", ", a[5], ", ", a[6], ", ",
                        a[7], ", ", a[8], ", x", s.var, ");");
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
        return f("log1pf", "log1p");
      case UnaryFn::Sin:
        return f("sinf", "sin");
      case UnaryFn::Cos:
        return f("cosf", "cos");
      case UnaryFn::Tan:
        return f("tanf", "tan");
      case UnaryFn::Tanh:
        return f("tanhf", "tanh");
      case UnaryFn::Sinh:
        return f("sinhf", "sinh");
      case UnaryFn::Cosh:
        return f("coshf", "cosh");
      case UnaryFn::Erf:
        return f("erff", "erf");
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
