// The f32 vector tile without tensor cores (after mma_sync.cuh, whose cp.async helpers it uses).
// f32 block tile without tensor cores (sm_80 and later, after kMmaHelpers): 128 x 256 outputs,
// 256 threads of 8 x 16 (warp w: rows 16 w + 8 (lane / 16) + i, columns 64 h + 4 (lane % 16) + j),
// 128 accumulators each, one workgroup per SM. K in k-tiles of BK through a STAGES-deep cp.async
// ring in 16-byte copies, neither operand transposed: A's rows K-contiguous (a thread reads 4 k of
// one row at once), B's N-contiguous (offsets, row strides, K and N multiples of 4 elements;
// copies past K or N zero-fill). H100, 4096^3: 3.16 ms against 3.53 for the 128 x 128 tile that
// transposed A through registers (scripts/kernel-lab, session 8), which stalled on its 128-register
// cap.
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
        cp_async16(smem_u32(&As[s][m][k]), in ? a + uint64_t(m0 + m) * a_ld + k0 + k : a,
                   in ? 16u : 0u);
      }
#pragma unroll
      for (int p = 0; p < BK * 256 / 4 / 256; ++p) {
        const uint q = tid + p * 256u, k = q / 64u, n = q % 64u * 4u;
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
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float av[8][4];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        *reinterpret_cast<float4*>(av[i]) =
            *reinterpret_cast<const float4*>(&As[cur][rbase + i][kq * 4]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float bv[16];
#pragma unroll
        for (int h = 0; h < 4; ++h)
          *reinterpret_cast<float4*>(bv + 4 * h) =
              *reinterpret_cast<const float4*>(&Bs[cur][kq * 4 + kk][64 * h + cbase]);
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
