// Tensor-core helpers and the mma.sync block tile (sm_80 and later). Embedded into the CUDA
// kernels whose plan has a tensor-core matmul (jit/cuda_tensor_core.cc); the CUDA dialect's
// prelude (jit/cuda_source.cc) defines `uint` and the fixed-width integers before it.
// Tensor-core block tile (mma.sync, sm_80 and later). Operands stream through a STAGES-deep
// cp.async pipeline into shared memory as RB-byte k-rows (K-major operands) or k-rows of the
// whole tile width (M/N-major ones), XOR-swizzled by 16-byte chunk so that ldmatrix reads of
// eight rows hit eight different bank groups. Out-of-range elements are zero-filled by the copy.
__device__ __forceinline__ uint smem_u32(const void* p) {
  uint64_t a;
  asm("cvta.to.shared.u64 %0, %1;" : "=l"(a) : "l"(p));
  return uint(a);
}
__device__ __forceinline__ void cp_async16(uint dst, const void* src, uint bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}
template <bool TRANS>
__device__ __forceinline__ void ldsm_x4(uint addr, uint* r) {
  if (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
template <int KIND>
__device__ __forceinline__ void mma_op(float* c, const uint* a, const uint* b) {
  if (KIND == 0)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if (KIND == 1)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
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
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}
// Loads a warp's A and B fragments of k-step `ks` of the staged tile at shared address sa
// (A) and sb (B); g is the same tile's generic address (TF32's scalar loads).
template <int KIND, bool A_K, bool B_K, int BM, int BN, int MI, int NI, int RB>
__device__ __forceinline__ void mma_frags(uint sa, uint sb, const unsigned char* g, uint ks,
                                          uint wm, uint wn, uint (&af)[MI][4], uint (&bf)[NI][2]) {
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
      bf[ni][0] = t[0];
      bf[ni][1] = t[1];
      bf[ni + 1][0] = t[2];
      bf[ni + 1][1] = t[3];
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
        mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, step * KS, wm, wn, af[0],
                                                      bf[0]);
      } else if (step + 1 < STEPS) {
        mma_frags<KIND, A_K, B_K, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, (step + 1) * KS, wm, wn,
                                                      af[cur ^ 1], bf[cur ^ 1]);
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
