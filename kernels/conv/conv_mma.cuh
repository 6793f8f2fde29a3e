// Implicit-GEMM convolution on the mma.sync tile (sm_80 and later; after mma_sync.cuh, whose
// fragment loads, copies and mma instructions it uses, and conv_gather.cuh). Per group,
// C[m][j] = sum_k A[m][k] B[k][j] with m = (sample, output row, output column), k = (input channel,
// kernel row, kernel column), j = output channel:
//   A[m][k] = x[n, c, oh * sh - ph + kh * dh, ow * sw - pw + kw * dw] (0 outside the input),
//   B[k][j] = w[j, k] (each output channel's weights one contiguous row of K).
// The input is read through its strides (any layout; NCHW in practice), so A cannot arrive by
// 16-byte copies: consecutive output pixels read consecutive input pixels shifted by the kernel
// offset, on no fixed alignment. Each thread gathers a run of consecutive k of one output pixel
// (fixed m, so its pixel's coordinates are worked out once per tile) into registers one k-tile
// ahead, and stores it into the stage the tensor cores read next as whole 16-byte chunks of the
// pixel's K-major row (a warp's loads run along m, coalesced; its stores are vectors); B streams
// by cp.async. With two stages the gather of k-tile t + 1 is in flight while the warps multiply
// k-tile t; with three, t + 2's too.
template <int KIND, int WM, int WN, int MI, int NI, int STAGES, int RB>
__device__ __forceinline__ void conv_mma_tile(const void* X, const void* Wt, const ConvTileArgs& p,
                                              uint m0, uint n0, float* acc) {
  constexpr int ES = KIND == 2 ? 4 : 2, BK = RB / ES, KS = KIND == 2 ? 8 : 16, STEPS = BK / KS;
  constexpr int BM = WM * MI * 16, BN = WN * NI * 8, THREADS = WM * WN * 32;
  // Threads per output pixel (k-groups) and the k each gathers per k-tile, in one run.
  constexpr int KG = THREADS / BM, KPT = BK / KG;
  static_assert(THREADS % BM == 0 && KPT % (16 / ES) == 0, "whole 16-byte chunks per thread");
  constexpr uint A_BYTES = BM * RB, STAGE = (BM + BN) * RB;
  typedef typename ConvElem<ES>::T E;
  static_assert(STAGES == 2 || STAGES == 3, "the gather runs one or two k-tiles ahead");
  // STAGES * STAGE bytes of stages, then the k table: 8 bytes per k of the whole k-tiles.
  extern __shared__ __align__(128) unsigned char smem[];
  const uint warp = threadIdx.x >> 5;
  const uint wm = warp / WN * (MI * 16), wn = warp % WN * (NI * 8);
  const uint s0 = smem_u32(smem);
  const uint KT = (p.K + BK - 1) / BK;
  uint2* table = reinterpret_cast<uint2*>(smem + STAGES * STAGE);
  conv_k_table<ES, THREADS>(table, p, KT * BK);
  const uint ml = threadIdx.x % BM, kg = threadIdx.x / BM;
  const ConvPixel<ES, KPT> pixel(X, p, m0 + ml);
  const char* wb = reinterpret_cast<const char*>(Wt) + uint64_t(p.w_off) * ES;
  __syncthreads();
  auto gather = [&](uint k0, E(&v)[KPT]) { pixel.gather(table, k0 + kg * KPT, p, v); };
  // The run is KPT / CE whole 16-byte chunks of the pixel's K-major row: one vector store each.
  auto put = [&](uint stage, const E(&v)[KPT]) {
    unsigned char* a = smem + stage * STAGE;
    constexpr int CE = 16 / ES;
#pragma unroll
    for (int q = 0; q < KPT / CE; ++q) {
      uint w[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (ES == 4) {
          w[i] = __float_as_uint(float(v[q * CE + i]));
        } else {
          w[i] = uint(v[q * CE + 2 * i]) | uint(v[q * CE + 2 * i + 1]) << 16;
        }
      }
      *reinterpret_cast<uint4*>(a + mma_elem<true, BM, ES, RB>(ml, kg * KPT + q * CE)) =
          make_uint4(w[0], w[1], w[2], w[3]);
    }
  };
  auto copy_b = [&](uint stage, uint k0) {
    mma_stage<true, BN, ES, THREADS, RB>(s0 + stage * STAGE + A_BYTES, wb, p.w_ld, n0, p.N, k0,
                                         p.K);
  };
  auto multiply = [&](uint stage) {
    const uint sa = s0 + stage * STAGE;
    const unsigned char* g = smem + stage * STAGE;
#pragma unroll
    for (int step = 0; step < STEPS; ++step) {
      uint af[MI][4], bf[NI][2];
      mma_frags<KIND, true, true, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, step * KS, wm, wn, af,
                                                      bf);
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) mma_op<KIND>(acc + (mi * NI + ni) * 4, af[mi], bf[ni]);
    }
  };
#pragma unroll
  for (int i = 0; i < MI * NI * 4; ++i) acc[i] = 0.0f;
  E va[KPT], vb[KPT];
  gather(0, va);
  copy_b(0, 0);
  cp_async_commit();
  put(0, va);
  if (STAGES == 2) {
    cp_async_wait<0>();
    __syncthreads();
    for (uint kt = 0; kt < KT; ++kt) {
      const bool more = kt + 1 < KT;
      // Stage (kt + 1) % 2 was last read in the previous k-tile, before its closing barrier.
      if (more) {
        gather((kt + 1) * BK, va);
        copy_b((kt + 1) & 1u, (kt + 1) * BK);
      }
      cp_async_commit();
      multiply(kt & 1u);
      if (more) put((kt + 1) & 1u, va);
      cp_async_wait<0>();
      __syncthreads();
    }
    return;
  }
  // Three stages: k-tile t + 1's gather is in flight in one register set while t + 2's is issued
  // into the other, so a gather has two k-tiles of multiplies to arrive. The loop runs two
  // k-tiles per trip so that each set is named statically (registers, not local memory).
  if (KT > 1) {
    gather(BK, vb);
    copy_b(1, BK);
  }
  cp_async_commit();
  cp_async_wait<1>();
  __syncthreads();
  auto iterate = [&](uint kt, E(&in_flight)[KPT], E(&spare)[KPT]) {
    // Stage (kt + 2) % 3 was read in k-tile kt - 1 and stage (kt + 1) % 3 in kt - 2, both before
    // a closing barrier.
    if (kt + 2 < KT) {
      gather((kt + 2) * BK, spare);
      copy_b((kt + 2) % 3u, (kt + 2) * BK);
    }
    cp_async_commit();
    multiply(kt % 3u);
    if (kt + 1 < KT) put((kt + 1) % 3u, in_flight);
    cp_async_wait<1>();  // k-tile kt + 1's weights (kt + 2's may still be in flight)
    __syncthreads();
  };
  for (uint kt = 0; kt < KT; kt += 2) {
    iterate(kt, vb, va);
    if (kt + 1 < KT) iterate(kt + 1, va, vb);
  }
}
