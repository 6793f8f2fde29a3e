#include "jit/cuda_tensor_core.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::jit {
namespace {

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
// The same for the wgmma tiles' canonical 128-byte-swizzled layouts (ES = 2, RB = 128): K-major
// rows of 64 k elements (as mma_elem's), or N-major atoms of 64 columns by BK k-rows, atom after
// atom along N; chunk c of k-row k sits at chunk c ^ (k % 8), as the hardware swizzle expects.
template <bool KMAJ, int BK>
__device__ __forceinline__ uint wg_elem(uint mn, uint k) {
  if (KMAJ) return mn * 128u + (((k >> 3) ^ (mn & 7u)) << 4) + (k & 7u) * 2u;
  return (mn >> 6) * uint(BK * 128) + k * 128u + ((((mn >> 3) & 7u) ^ (k & 7u)) << 4) +
         (mn & 7u) * 2u;
}
// Issues the copies of one stage of one operand: rows [mn0, mn0 + ROWS) by k-rows [k0, k0 + BK),
// in mma_elem's layout or (WG) in wg_elem's.
template <bool KMAJ, int ROWS, int ES, int THREADS, int RB, bool WG = false>
__device__ __forceinline__ void mma_stage(uint dst, const char* base, uint ld, uint mn0, uint MN,
                                          uint k0, uint K) {
  constexpr uint CE = 16 / ES, CHUNKS = ROWS * RB / 16, KCHUNKS = RB / 16;
#pragma unroll
  for (uint i = 0; i < (CHUNKS + THREADS - 1) / THREADS; ++i) {
    uint q = threadIdx.x + i * THREADS;
    if (CHUNKS % THREADS != 0 && q >= CHUNKS) break;
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
    const uint e = WG ? wg_elem<KMAJ, RB / ES>(mn - mn0, k - k0)
                      : mma_elem<KMAJ, ROWS, ES, RB>(mn - mn0, k - k0);
    cp_async16(dst + e, src, bytes);
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

constexpr const char* kWgmmaHelpers = R"(
// Warpgroup tile (wgmma.mma_async, sm_90a): each warpgroup (two or three) owns 64 rows of the
// block and all its BN columns; the tensor cores read both operands from shared memory
// through descriptors. Copies (cp.async, every thread) run STAGES - 2 k-tiles ahead and one
// group of wgmmas stays in flight while the next is issued, so a stage is refilled only after
// the barrier that follows every warpgroup's wait for the group that read it.
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" :: "n"(N) : "memory");
}
// Copies land through the generic proxy; wgmma reads through the async one.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Keeps the compiler from moving accumulator accesses across an asynchronous wgmma.
template <int N> __device__ __forceinline__ void wg_pin(float* d) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}
// Shared-memory matrix descriptor with the 128-byte swizzle: start address, leading and stride
// byte offsets, each in 16-byte units.
__device__ __forceinline__ uint64_t wg_desc(uint addr, uint lbo, uint sbo) {
  return uint64_t((addr & 0x3FFFFu) >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 |
         1ull << 62;
}
// Issues one k-tile's wgmmas (BK / 16 of them) on the staged A rows at sa and B at sb as one
// group, then waits until only that group is in flight: the previous k-tile's group is done.
template <int KIND, bool B_K, int BN, int BK>
__device__ __forceinline__ void wg_ktile(float* acc, uint sa, uint sb) {
  wg_pin<BN / 2>(acc);
  wg_fence();
#pragma unroll
  for (int s = 0; s < BK / 16; ++s) {
    // A: 8-row groups 1024 bytes apart; k advances 32 bytes within the swizzled row. B
    // N-major: 64-column atoms BK k-rows apart, 8-k-row groups 1024 bytes apart.
    const uint64_t da = wg_desc(sa + s * 32, 16, 1024);
    const uint64_t db = B_K ? wg_desc(sb + s * 32, 16, 1024) : wg_desc(sb + s * 2048, BK * 128, 1024);
    Wgmma<BN>::template op<KIND, !B_K>(acc, da, db);
  }
  wg_commit();
  wg_wait<1>();
  wg_pin<BN / 2>(acc);
}
template <int KIND, bool B_K, int WARPS, int BN, int STAGES>
__device__ __forceinline__ void wgmma_tile(const void* A, uint a_off, uint a_ld, const void* B,
                                           uint b_off, uint b_ld, uint M, uint N, uint K, uint m0,
                                           uint n0, float* acc) {
  constexpr int ES = 2, BK = 64, BM = WARPS * 16, THREADS = WARPS * 32, AHEAD = STAGES - 2;
  constexpr uint A_BYTES = BM * 128, STAGE = (BM + BN) * 128;
  static_assert(AHEAD >= 1 && BN % 64 == 0, "wgmma tile shape");
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * STAGE + 1024 bytes
  const uint s0 = (smem_u32(smem) + 1023u) & ~1023u;      // swizzle atoms: 1024-byte aligned
  const uint a_rows = (threadIdx.x >> 7) * 64u * 128u;    // this warpgroup's 64 rows of A
  const char* a = (const char*)A + uint64_t(a_off) * ES;
  const char* b = (const char*)B + uint64_t(b_off) * ES;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  const uint KT = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < AHEAD; ++s) {
    if (uint(s) < KT) {
      mma_stage<true, BM, ES, THREADS, 128, true>(s0 + s * STAGE, a, a_ld, m0, M, s * BK, K);
      mma_stage<B_K, BN, ES, THREADS, 128, true>(s0 + s * STAGE + A_BYTES, b, b_ld, n0, N, s * BK, K);
    }
    cp_async_commit();
  }
  for (uint kt = 0; kt < KT; ++kt) {
    cp_async_wait<AHEAD - 1>();
    fence_proxy_async();
    __syncthreads();
    const uint next = kt + AHEAD;
    if (next < KT) {
      const uint st = s0 + (next % STAGES) * STAGE;
      mma_stage<true, BM, ES, THREADS, 128, true>(st, a, a_ld, m0, M, next * BK, K);
      mma_stage<B_K, BN, ES, THREADS, 128, true>(st + A_BYTES, b, b_ld, n0, N, next * BK, K);
    }
    cp_async_commit();
    const uint sa = s0 + (kt % STAGES) * STAGE + a_rows, sb = s0 + (kt % STAGES) * STAGE + A_BYTES;
    wg_ktile<KIND, B_K, BN, BK>(acc, sa, sb);
  }
  wg_wait<0>();
  wg_pin<BN / 2>(acc);
  cp_async_wait<0>();
  __syncthreads();  // the next tile of a grid-stride loop refills the stages
}
)";

constexpr const char* kTmaHelpers = R"(
// Warpgroup tile fed by the copy engine (sm_90a). The first WARPS / 4 warpgroups multiply as
// wgmma_tile's do; one thread of the warpgroup after them, the producer, issues the bulk tensor
// copies of each k-tile's A box and B boxes (tensor maps tm0, tm1: 128-byte swizzled, zeros
// outside the matrix) into a STAGES-deep ring. Stage s has two mbarriers: full[s] completes when
// its bytes have landed, empty[s] when every consumer warp's wgmmas that read it are done. No
// consumer thread computes a copy address and no block-wide barrier runs inside the k loop.
struct __align__(64) TensorMap { uint64_t v[16]; };
__device__ __forceinline__ void mbar_init(uint bar, uint count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_inval(uint bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect(uint bar, uint bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(bytes) : "memory");
}
// Waits for the completion of the barrier's phase of parity `parity`.
__device__ __forceinline__ void mbar_wait(uint bar, uint parity) {
  uint done = 0;
  while (!done)
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}
// The box at (column c0, row c1) of the map's matrix into shared memory at dst.
__device__ __forceinline__ void tma_load(uint dst, const TensorMap* map, uint c0, uint c1, uint bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
               :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}
template <int KIND, bool B_K, int WARPS, int BN, int STAGES>
__device__ __forceinline__ void wgmma_tma_tile(const TensorMap* ta, const TensorMap* tb, uint K,
                                               uint m0, uint n0, float* acc) {
  constexpr int BK = 64, BM = WARPS * 16, CONSUMERS = WARPS * 32;
  constexpr uint A_BYTES = BM * 128, STAGE = (BM + BN) * 128;
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * STAGE + 1024 bytes
  __shared__ __align__(8) uint64_t bars[2 * STAGES];      // full[STAGES], then empty[STAGES]
  const uint s0 = (smem_u32(smem) + 1023u) & ~1023u;      // swizzle atoms: 1024-byte aligned
  const uint full = smem_u32(bars), empty = full + STAGES * 8;
  const uint KT = (K + BK - 1) / BK;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + s * 8, 1);
      mbar_init(empty + s * 8, WARPS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x >= CONSUMERS) {
    if (threadIdx.x == CONSUMERS) {
      for (uint kt = 0; kt < KT; ++kt) {
        const uint s = kt % STAGES, st = s0 + s * STAGE, bar = full + s * 8;
        if (kt >= STAGES) mbar_wait(empty + s * 8, (kt / STAGES - 1) & 1u);
        mbar_expect(bar, STAGE);
        tma_load(st, ta, kt * BK, m0, bar);
        if (B_K) {
          tma_load(st + A_BYTES, tb, kt * BK, n0, bar);
        } else {
#pragma unroll
          for (int j = 0; j < BN / 64; ++j) tma_load(st + A_BYTES + j * 8192, tb, n0 + j * 64, kt * BK, bar);
        }
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
    const uint a_rows = (threadIdx.x >> 7) * 64u * 128u;  // this warpgroup's 64 rows of A
    for (uint kt = 0; kt < KT; ++kt) {
      const uint s = kt % STAGES;
      mbar_wait(full + s * 8, (kt / STAGES) & 1u);
      const uint sa = s0 + s * STAGE + a_rows, sb = s0 + s * STAGE + A_BYTES;
      wg_ktile<KIND, B_K, BN, BK>(acc, sa, sb);  // then the previous k-tile's stage is free
      if (kt > 0 && (threadIdx.x & 31u) == 0u) mbar_arrive(empty + ((kt - 1) % STAGES) * 8);
    }
    wg_wait<0>();
    wg_pin<BN / 2>(acc);
  }
  // Every copy has been waited for: the barriers can be re-initialised for the next tile.
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < 2 * STAGES; ++s) mbar_inval(full + s * 8);
  }
}
)";

constexpr const char* kSimtHelpers = R"(
// f32 block tile without tensor cores (sm_80 and later, after kMmaHelpers): 128 x 256 outputs,
// 256 threads of 8 x 16 (warp w: rows 16 w + 8 (lane / 16) + i, columns 64 h + 4 (lane % 16) + j),
// 128 accumulators each, one workgroup per SM. K in k-tiles of BK through a STAGES-deep cp.async
// ring in 16-byte copies, neither operand transposed: A's rows K-contiguous (a thread reads 4 k of
// one row at once), B's N-contiguous (offsets, row strides, K and N multiples of 4 elements;
// copies past K or N zero-fill). H100, 4096^3: 3.16 ms against 3.53 for the 128 x 128 tile that transposed A
// through registers (scripts/kernel-lab, session 8), which stalled on its 128-register cap.
template <int BK, int STAGES>
__device__ __forceinline__ void simt_tile(const float* A, uint a_off, uint a_ld, const float* B,
                                          uint b_off, uint b_ld, uint M, uint N, uint K, uint m0,
                                          uint n0, float* acc) {
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * (128 + 256) * BK floats
  float(*As)[128][BK] = reinterpret_cast<float(*)[128][BK]>(smem);
  float(*Bs)[BK][256] = reinterpret_cast<float(*)[BK][256]>(smem + STAGES * 128 * BK * 4);
  const uint tid = threadIdx.x, lane = tid % 32u;
  const uint rbase = tid / 32u * 16u + lane / 16u * 8u, cbase = lane % 16u * 4u;
  const float* a = A + a_off;
  const float* b = B + b_off;
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
  const uint KT = (K + BK - 1) / BK;
  auto issue = [&](uint kt) {
    if (kt < KT) {
      const uint s = kt % STAGES, k0 = kt * BK;
#pragma unroll
      for (int p = 0; p < 128 * BK / 4 / 256; ++p) {
        const uint q = tid + p * 256u, m = q / (BK / 4), k = q % (BK / 4) * 4u;
        const bool in = m0 + m < M && k0 + k < K;
        cp_async16(smem_u32(&As[s][m][k]), in ? a + uint64_t(m0 + m) * a_ld + k0 + k : a, in ? 16u : 0u);
      }
#pragma unroll
      for (int p = 0; p < BK * 256 / 4 / 256; ++p) {
        const uint q = tid + p * 256u, k = q / 64u, n = q % 64u * 4u;
        const bool in = k0 + k < K && n0 + n < N;
        cp_async16(smem_u32(&Bs[s][k][n]), in ? b + uint64_t(k0 + k) * b_ld + n0 + n : b, in ? 16u : 0u);
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  for (uint kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // k-tile kt landed for every thread; the stage read at kt - 1 is free
    issue(kt + STAGES - 1);
    const uint cur = kt % STAGES;
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float av[8][4];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        *reinterpret_cast<float4*>(av[i]) = *reinterpret_cast<const float4*>(&As[cur][rbase + i][kq * 4]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float bv[16];
#pragma unroll
        for (int h = 0; h < 4; ++h)
          *reinterpret_cast<float4*>(bv + 4 * h) = *reinterpret_cast<const float4*>(&Bs[cur][kq * 4 + kk][64 * h + cbase]);
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 16; ++j) acc[i * 16 + j] = fmaf(av[i][kk], bv[j], acc[i * 16 + j]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the next tile of a grid-stride loop refills the stages
}
)";

// Wgmma<N>::op<KIND, TRANS_B>: one m64nNk16 wgmma (f16 or bf16 in, f32 accumulators d[0, N / 2)).
// The instruction names every accumulator register, so the source is generated per N.
std::string wgmma_op_source(int n) {
  const int regs = n / 2;
  std::vector<std::string> names, operands;
  for (int i = 0; i < regs; ++i) {
    names.push_back(absl::StrCat("%", i));
    operands.push_back(absl::StrCat("\"+f\"(d[", i, "])"));
  }
  auto variant = [&](const char* type) {
    return absl::StrCat("    asm volatile(\"wgmma.mma_async.sync.aligned.m64n", n, "k16.f32.", type,
                        ".", type, " {", absl::StrJoin(names, ","), "}, %", regs, ", %", regs + 1,
                        ", 1, 1, 1, 0, %", regs + 2,
                        ";\\n\"\n      : ", absl::StrJoin(operands, ", "),
                        "\n      : \"l\"(da), \"l\"(db), \"n\"(TRANS_B));\n");
  };
  return absl::StrCat(
      "template <> struct Wgmma<", n, "> {\n", "  template <int KIND, int TRANS_B>\n",
      "  static __device__ __forceinline__ void op(float* d, uint64_t da, uint64_t db) {\n",
      "  if (KIND == 0)\n", variant("f16"), "  else\n", variant("bf16"), "  }\n};\n");
}

}  // namespace

std::string tensor_core_helpers(const KernelDesc& k) {
  std::set<int> wgmma_widths;
  bool any = false, simt = false, tma = false;
  for (const Stmt& s : k.body) {
    if (s.op != SOp::MmaTile) continue;
    MmaShape m = MmaShape::unpack(s.code);
    if (m.kind == MmaShape::F32Simt) {
      simt = true;
      continue;
    }
    any = true;
    if (m.wgmma) wgmma_widths.insert(m.block_n());
    tma = tma || m.tma;
  }
  if (!any && !simt) return "";
  std::string out = absl::StrCat(kMmaHelpers, simt ? kSimtHelpers : "");
  if (!any) return out;
  if (wgmma_widths.empty()) return out;
  out += "template <int N> struct Wgmma;\n";
  for (int n : wgmma_widths) out += wgmma_op_source(n);
  return out + kWgmmaHelpers + (tma ? kTmaHelpers : "");
}

std::string tensor_core_call(const MmaShape& m, const std::string& a, const std::string& b,
                             const std::vector<std::string>& args, const std::string& acc) {
  if (m.tma) {  // operands through tensor maps tm0 and tm1: K and the block's corner only
    return absl::StrCat("wgmma_tma_tile<", static_cast<int>(m.kind), ", ", m.b_kmajor, ", ",
                        m.warps_m, ", ", m.block_n(), ", ", m.stages, ">(&tm0, &tm1, ", args[6],
                        ", ", args[7], ", ", args[8], ", ", acc, ");");
  }
  std::string call =
      m.kind == MmaShape::F32Simt
          ? absl::StrCat("simt_tile<", m.row_bytes / 4, ", ", m.stages, ">(")
      : m.wgmma ? absl::StrCat("wgmma_tile<", static_cast<int>(m.kind), ", ", m.b_kmajor, ", ",
                               m.warps_m, ", ", m.block_n(), ", ", m.stages, ">(")
                : absl::StrCat("mma_tile<", static_cast<int>(m.kind), ", ", m.a_kmajor, ", ",
                               m.b_kmajor, ", ", m.warps_m, ", ", m.warps_n, ", ", m.frags_m, ", ",
                               m.frags_n, ", ", m.stages, ", ", m.row_bytes, ">(");
  return absl::StrCat(call, a, ", ", args[0], ", ", args[1], ", ", b, ", ", args[2], ", ", args[3],
                      ", ", args[4], ", ", args[5], ", ", args[6], ", ", args[7], ", ", args[8],
                      ", ", acc, ");");
}

}  // namespace ember::jit
