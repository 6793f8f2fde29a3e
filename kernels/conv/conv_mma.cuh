// Implicit-GEMM convolution on the mma.sync tile (sm_80 and later; after mma_sync.cuh, whose
// fragment loads, copies and mma instructions it uses). Per group, C[m][j] = sum_k A[m][k] B[k][j]
// with m = (sample, output row, output column), k = (input channel, kernel row, kernel column),
// j = output channel:
//   A[m][k] = x[n, c, oh * sh - ph + kh * dh, ow * sw - pw + kw * dw] (0 outside the input),
//   B[k][j] = w[j, k] (each output channel's weights one contiguous row of K).
// The input is read through its strides (any layout; NCHW in practice), so A cannot arrive by
// 16-byte copies: consecutive output pixels read consecutive input pixels shifted by the kernel
// offset, on no fixed alignment. Each thread gathers A elements of one output pixel (fixed m,
// so its pixel's coordinates are worked out once per tile) into registers one k-tile ahead,
// and stores them into the stage the tensor cores read next; B streams by cp.async. Two stages:
// the gather of k-tile t + 1 is in flight while the warps multiply k-tile t.
template <int ES>
struct ConvElem {
  typedef unsigned short T;  // f16 and bf16 move as their bits
};
template <>
struct ConvElem<4> {
  typedef float T;
};
struct ConvTileArgs {
  uint x_off, sxn, sxc, sxh, sxw;  // the input's element offset (this group's) and strides
  uint H, W, OH, OW;               // input and output sizes (rows 1 for a 1-d convolution)
  uint KH, KW, SH, SW, PH, PW, DH, DW;
  uint w_off, w_ld;  // this group's first weight row and the row stride (elements)
  uint M, N, K;
};
template <int KIND, int WM, int WN, int MI, int NI, int RB>
__device__ __forceinline__ void conv_mma_tile(const void* X, const void* Wt, const ConvTileArgs& p,
                                              uint m0, uint n0, float* acc) {
  constexpr int ES = KIND == 2 ? 4 : 2, BK = RB / ES, KS = KIND == 2 ? 8 : 16, STEPS = BK / KS;
  constexpr int BM = WM * MI * 16, BN = WN * NI * 8, THREADS = WM * WN * 32;
  // Threads per output pixel (k-groups) and the k each gathers per k-tile, in one run.
  constexpr int KG = THREADS / BM, KPT = BK / KG;
  static_assert(THREADS % BM == 0 && BK % KG == 0, "whole k-runs per thread");
  constexpr uint A_BYTES = BM * RB, STAGE = (BM + BN) * RB;
  typedef typename ConvElem<ES>::T E;
  extern __shared__ __align__(128) unsigned char smem[];  // 2 * STAGE bytes
  const uint warp = threadIdx.x >> 5;
  const uint wm = warp / WN * (MI * 16), wn = warp % WN * (NI * 8);
  const uint s0 = smem_u32(smem);
  const uint ml = threadIdx.x % BM, kg = threadIdx.x / BM, m = m0 + ml;
  const bool row_ok = m < p.M;
  const uint ow = m % p.OW, rest = m / p.OW, oh = rest % p.OH, n = rest / p.OH;
  const E* xb = reinterpret_cast<const E*>(X) + p.x_off + (row_ok ? n * p.sxn : 0u);
  const int ih0 = int(oh * p.SH) - int(p.PH), iw0 = int(ow * p.SW) - int(p.PW);
  const char* wb = reinterpret_cast<const char*>(Wt) + uint64_t(p.w_off) * ES;
  const uint taps = p.KH * p.KW;
  E v[KPT];
  // This thread's run of KPT k of the k-tile at k0: (c, kh, kw) advance as a counter.
  auto gather = [&](uint k0) {
    const uint k = k0 + kg * KPT;
    uint c = k / taps, r = k % taps;
    uint kh = r / p.KW, kw = r % p.KW;
#pragma unroll
    for (int j = 0; j < KPT; ++j) {
      const int ih = ih0 + int(kh * p.DH), iw = iw0 + int(kw * p.DW);
      E val = E(0);
      if (row_ok && k + j < p.K && uint(ih) < p.H && uint(iw) < p.W)
        val = xb[c * p.sxc + uint(ih) * p.sxh + uint(iw) * p.sxw];
      v[j] = val;
      if (++kw == p.KW) {
        kw = 0;
        if (++kh == p.KH) kh = 0, ++c;
      }
    }
  };
  auto put = [&](uint stage) {
    unsigned char* a = smem + stage * STAGE;
#pragma unroll
    for (int j = 0; j < KPT; ++j)
      *reinterpret_cast<E*>(a + mma_elem<false, BM, ES, RB>(ml, kg * KPT + j)) = v[j];
  };
  auto copy_b = [&](uint stage, uint k0) {
    mma_stage<true, BN, ES, THREADS, RB>(s0 + stage * STAGE + A_BYTES, wb, p.w_ld, n0, p.N, k0,
                                         p.K);
  };
#pragma unroll
  for (int i = 0; i < MI * NI * 4; ++i) acc[i] = 0.0f;
  const uint KT = (p.K + BK - 1) / BK;
  gather(0);
  copy_b(0, 0);
  cp_async_commit();
  put(0);
  cp_async_wait<0>();
  __syncthreads();
  for (uint kt = 0; kt < KT; ++kt) {
    const uint cur = kt & 1u;
    const bool more = kt + 1 < KT;
    // Stage cur ^ 1 was last read in the previous k-tile, before its closing barrier.
    if (more) {
      gather((kt + 1) * BK);
      copy_b(cur ^ 1u, (kt + 1) * BK);
    }
    cp_async_commit();
    const uint sa = s0 + cur * STAGE;
    const unsigned char* g = smem + cur * STAGE;
#pragma unroll
    for (int step = 0; step < STEPS; ++step) {
      uint af[MI][4], bf[NI][2];
      mma_frags<KIND, false, true, BM, BN, MI, NI, RB>(sa, sa + A_BYTES, g, step * KS, wm, wn, af,
                                                       bf);
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) mma_op<KIND>(acc + (mi * NI + ni) * 4, af[mi], bf[ni]);
    }
    if (more) put(cur ^ 1u);
    cp_async_wait<0>();
    __syncthreads();
  }
}
