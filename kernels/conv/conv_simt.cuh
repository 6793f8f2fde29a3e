// The f32 conv tiles without tensor cores (sm_80 and later; after mma_sync.cuh for its cp.async
// helpers, and conv_gather.cuh): the implicit GEMM of conv_mma.cuh in exact f32 FMAs, BM x 64
// outputs per group of GT = 2 BM threads. A thread holds RI x CJ outputs: rows tr + 16 i (tr =
// thread % 16, so a warp's stores of one channel cover 16 consecutive pixels) and columns
// CJ tc + j (tc = thread / 16); BM = 128 takes 8 x 4, BM = 64 takes 4 x 8. Each k-tile of 16:
// the input gathered one k-tile ahead (two threads per pixel, 8 k each) into K-major rows padded
// to 20 floats, the weight's K-major rows by cp.async; per 4 k a thread reads RI + CJ 16-byte
// vectors for 4 RI CJ FMAs.
// KSPLIT > 1 groups share one block of outputs and split its k-tiles between them (group g takes
// k-tiles g, g + KSPLIT, ...; each its own stages and named barrier), then add their sums in
// group order through shared memory: the same result every run. For products with few blocks
// and long reductions (a weight gradient), it puts KSPLIT times the warps on each block.
template <int BM, int KSPLIT, int STAGES>
__device__ __forceinline__ void conv_simt_tile(const void* X, const void* Wt, const ConvTileArgs& p,
                                               uint m0, uint n0, float* acc) {
  constexpr int BN = 64, BK = 16, LD = BK + 4, GT = 2 * BM, KPT = 8;
  constexpr int RI = BM / 16, CJ = BN / (GT / 16), NACC = RI * CJ, THREADS = KSPLIT * GT;
  static_assert(STAGES == 2, "the gather runs one k-tile ahead");
  static_assert(BM == 64 || BM == 128, "the thread layouts above");
  // KSPLIT groups of STAGES stages of A [BM][LD] and B [BN][LD] floats, then the k table.
  extern __shared__ __align__(128) unsigned char smem[];
  typedef float Stage[BM + BN][LD];
  const uint tid = threadIdx.x, grp = tid / GT, gt = tid % GT;
  Stage* st = reinterpret_cast<Stage*>(smem) + grp * STAGES;
  const uint KT = (p.K + BK - 1) / BK;
  uint2* table = reinterpret_cast<uint2*>(smem + KSPLIT * STAGES * sizeof(Stage));
  conv_k_table<4, THREADS>(table, p, KT * BK);
  const uint ml = gt % BM, kg = gt / BM;
  const ConvPixel<4, KPT> pixel(X, p, m0 + ml);
  const float* wb = reinterpret_cast<const float*>(Wt) + p.w_off;
  const uint tr = gt % 16u, tc = gt / 16u;
  __syncthreads();
  // The group's barrier (named barrier grp + 1; 0 is __syncthreads').
  auto group_sync = [&] {
    if (KSPLIT == 1)
      __syncthreads();
    else
      asm volatile("bar.sync %0, %1;" ::"r"(grp + 1), "n"(GT));
  };
  float v[KPT];
  auto put = [&](uint s) {
    float* a = &st[s][ml][kg * KPT];
    *reinterpret_cast<float4*>(a) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(a + 4) = make_float4(v[4], v[5], v[6], v[7]);
  };
  // 16-byte chunks of the weight: chunk q = gt + GT c is row j = q / 4 = gt / 4 + GT / 4 c at k
  // chunk q % 4 = gt % 4. With one chunk a thread (the 128 x 64 tile) its row's offsets are
  // worked out once, leaving a k-tile's copy an add, the bounds and the copy: 708 instructions a
  // k-tile against 736 (NVRTC 13, sm_90a). With two, keeping them costs the 80-register
  // split-k tile 56 bytes of spills in its k loop, so they are worked out for each copy.
  constexpr int CHUNKS = BN * BK / 4 / GT;
  static_assert(CHUNKS * GT == BN * BK / 4 && GT % 4 == 0, "whole chunks per thread");
  const uint b_j = gt / 4u, b_k = gt % 4u * 4u;
  const uint b_row = CHUNKS == 1 ? (n0 + b_j) * p.w_ld : 0u;
  const uint b_dst = CHUNKS == 1 ? smem_u32(&st[0][BM + b_j][b_k]) : 0u;
  auto copy_b = [&](uint s, uint k0) {
    if constexpr (CHUNKS == 1) {
      const uint k = k0 + b_k;
      const bool in = n0 + b_j < p.N && k < p.K;
      cp_async16(b_dst + s * uint(sizeof(Stage)), in ? wb + b_row + k : wb,
                 in ? min(16u, (p.K - k) * 4u) : 0u);
    } else {
#pragma unroll
      for (uint q = gt; q < BN * BK / 4; q += GT) {
        const uint j = q / 4u, k = k0 + q % 4u * 4u;
        const bool in = n0 + j < p.N && k < p.K;
        cp_async16(smem_u32(&st[s][BM + j][q % 4u * 4u]),
                   in ? wb + uint64_t(n0 + j) * p.w_ld + k : wb,
                   in ? min(16u, (p.K - k) * 4u) : 0u);
      }
    }
  };
  auto multiply = [&](uint s) {
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float a[RI][4], b[CJ][4];
#pragma unroll
      for (int i = 0; i < RI; ++i)
        *reinterpret_cast<float4*>(a[i]) =
            *reinterpret_cast<const float4*>(&st[s][tr + 16 * i][kq * 4]);
#pragma unroll
      for (int j = 0; j < CJ; ++j)
        *reinterpret_cast<float4*>(b[j]) =
            *reinterpret_cast<const float4*>(&st[s][BM + tc * CJ + j][kq * 4]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < RI; ++i)
#pragma unroll
          for (int j = 0; j < CJ; ++j) acc[i * CJ + j] = fmaf(a[i][kk], b[j][kk], acc[i * CJ + j]);
    }
  };
#pragma unroll
  for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;
  if (grp < KT) {
    pixel.gather(table, grp * BK + kg * KPT, p, v);
    copy_b(0, grp * BK);
    cp_async_commit();
    put(0);
    cp_async_wait<0>();
    group_sync();
    uint s = 0;
    for (uint kt = grp; kt < KT; kt += KSPLIT, s ^= 1u) {
      const uint next = kt + KSPLIT;
      // Stage s ^ 1 was last read in the group's previous k-tile, before its closing barrier.
      if (next < KT) {
        pixel.gather(table, next * BK + kg * KPT, p, v);
        copy_b(s ^ 1u, next * BK);
      }
      cp_async_commit();
      multiply(s);
      if (next < KT) put(s ^ 1u);
      cp_async_wait<0>();
      group_sync();
    }
  }
  if (KSPLIT == 1) return;
  // Groups 1.. leave their sums in the (now free) stages; group 0 adds them in group order.
  __syncthreads();
  float* red = reinterpret_cast<float*>(smem);
  if (grp > 0) {
#pragma unroll
    for (int i = 0; i < NACC; ++i) red[((grp - 1) * NACC + i) * GT + gt] = acc[i];
  }
  __syncthreads();
  if (grp == 0) {
    for (int g = 0; g < KSPLIT - 1; ++g)
#pragma unroll
      for (int i = 0; i < NACC; ++i) acc[i] += red[(g * NACC + i) * GT + gt];
  }
}
