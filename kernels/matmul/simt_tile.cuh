// The f32 vector tiles without tensor cores (sm_80 and later, after mma_sync.cuh, whose cp.async
// helpers they use): 128 x BN outputs (BN 256 or 128), 256 threads of 8 x BN / 16 (warp w: rows
// 16 w + 8 (lane / 16) + i, columns 64 h + 4 (lane % 16) + j), one or two workgroups per SM. K in
// k-tiles of BK through a STAGES-deep cp.async ring in 16-byte copies, neither operand
// transposed on the way: A's rows K-contiguous (a thread reads 4 k of one row at once) or, with
// A_KMAJOR false, its columns M-contiguous (a thread reads 4 rows of one k at once: the weight
// gradient x^T dy); B's N-contiguous (offsets, row strides, K and N, and M for an M-major A,
// multiples of 4 elements; copies past the edges zero-fill). H100, 4096^3: 3.16 ms against 3.53
// for a 128 x 128 tile that transposed A through registers (scripts/kernel-lab, session 8),
// which stalled on its 128-register cap.
template <int BK, int STAGES, int BN = 256, bool A_KMAJOR = true>
__device__ __forceinline__ void simt_tile(const float* A, uint a_off, uint a_ld, const float* B,
                                          uint b_off, uint b_ld, uint M, uint N, uint K, uint m0,
                                          uint n0, float* acc) {
  static_assert(BN == 256 || BN == 128, "64-column chunks, 4 per thread each");
  constexpr int H = BN / 64, CJ = 4 * H;                  // a thread's column chunks and columns
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * (128 + BN) * BK floats
  // A as [m][k] (K-major) or [k][m] (M-major): the same bytes either way.
  float* As = reinterpret_cast<float*>(smem);
  float(*Bs)[BK][BN] = reinterpret_cast<float(*)[BK][BN]>(smem + STAGES * 128 * BK * 4);
  const uint tid = threadIdx.x, lane = tid % 32u;
  const uint rbase = tid / 32u * 16u + lane / 16u * 8u, cbase = lane % 16u * 4u;
  const float* a = A + a_off;
  const float* b = B + b_off;
#pragma unroll
  for (int i = 0; i < 8 * CJ; ++i) acc[i] = 0.0f;
  const uint KT = (K + BK - 1) / BK;
  auto issue = [&](uint kt) {
    if (kt < KT) {
      const uint s = kt % STAGES, k0 = kt * BK;
      float* as = As + s * 128 * BK;
#pragma unroll
      for (int p = 0; p < 128 * BK / 4 / 256; ++p) {
        const uint q = tid + p * 256u;
        if constexpr (A_KMAJOR) {
          const uint m = q / (BK / 4), k = q % (BK / 4) * 4u;
          const bool in = m0 + m < M && k0 + k < K;
          cp_async16(smem_u32(as + m * BK + k), in ? a + uint64_t(m0 + m) * a_ld + k0 + k : a,
                     in ? 16u : 0u);
        } else {
          const uint k = q / 32u, m = q % 32u * 4u;
          const bool in = k0 + k < K && m0 + m < M;
          cp_async16(smem_u32(as + k * 128 + m), in ? a + uint64_t(k0 + k) * a_ld + m0 + m : a,
                     in ? 16u : 0u);
        }
      }
#pragma unroll
      for (int p = 0; p < BK * BN / 4 / 256; ++p) {
        const uint q = tid + p * 256u, k = q / (BN / 4), n = q % (BN / 4) * 4u;
        const bool in = k0 + k < K && n0 + n < N;
        cp_async16(smem_u32(&Bs[s][k][n]), in ? b + uint64_t(k0 + k) * b_ld + n0 + n : b,
                   in ? 16u : 0u);
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
    const float* as = As + cur * 128 * BK;
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float av[8][4];  // av[i][kk]: row rbase + i at k 4 kq + kk
      if constexpr (A_KMAJOR) {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          *reinterpret_cast<float4*>(av[i]) =
              *reinterpret_cast<const float4*>(as + (rbase + i) * BK + kq * 4);
      } else {
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          const float* col = as + (kq * 4 + kk) * 128 + rbase;
          const float4 lo = *reinterpret_cast<const float4*>(col);
          const float4 hi = *reinterpret_cast<const float4*>(col + 4);
          av[0][kk] = lo.x, av[1][kk] = lo.y, av[2][kk] = lo.z, av[3][kk] = lo.w;
          av[4][kk] = hi.x, av[5][kk] = hi.y, av[6][kk] = hi.z, av[7][kk] = hi.w;
        }
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float bv[CJ];
#pragma unroll
        for (int h = 0; h < H; ++h)
          *reinterpret_cast<float4*>(bv + 4 * h) =
              *reinterpret_cast<const float4*>(&Bs[cur][kq * 4 + kk][64 * h + cbase]);
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < CJ; ++j) acc[i * CJ + j] = fmaf(av[i][kk], bv[j], acc[i * CJ + j]);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();  // the next tile of a grid-stride loop refills the stages
}
