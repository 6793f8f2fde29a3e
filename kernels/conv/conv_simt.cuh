// The f32 conv tile without tensor cores (sm_80 and later; after mma_sync.cuh for its cp.async
// helpers, and conv_gather.cuh): the implicit GEMM of conv_mma.cuh in exact f32 FMAs. 128 x 64
// outputs per workgroup of 256 threads, 8 x 4 per thread: rows tr + 16 i (tr = thread % 16, so a
// warp's stores of one channel cover 16 consecutive pixels) and columns 4 tc + j (tc = thread /
// 16). Each k-tile of 16: the input gathered one k-tile ahead (two threads per pixel, 8 k each)
// into K-major rows padded to 20 floats, the weight's K-major rows by cp.async; per 4 k a thread
// reads 8 + 4 16-byte vectors for 128 FMAs.
template <int STAGES>
__device__ __forceinline__ void conv_simt_tile(const void* X, const void* Wt,
                                               const ConvTileArgs& p, uint m0, uint n0,
                                               float* acc) {
  constexpr int BM = 128, BN = 64, BK = 16, LD = BK + 4, THREADS = 256, KPT = 8;
  static_assert(STAGES == 2, "the gather runs one k-tile ahead");
  // STAGES stages of A [128][LD] and B [64][LD] floats, then the k table.
  extern __shared__ __align__(128) unsigned char smem[];
  typedef float Stage[BM + BN][LD];
  Stage* st = reinterpret_cast<Stage*>(smem);
  const uint KT = (p.K + BK - 1) / BK;
  uint2* table = reinterpret_cast<uint2*>(smem + STAGES * sizeof(Stage));
  conv_k_table<4, THREADS>(table, p, KT * BK);
  const uint tid = threadIdx.x, ml = tid % BM, kg = tid / BM;
  const ConvPixel<4, KPT> pixel(X, p, m0 + ml);
  const float* wb = reinterpret_cast<const float*>(Wt) + p.w_off;
  const uint tr = tid % 16u, tc = tid / 16u;
  __syncthreads();
  float v[KPT];
  auto put = [&](uint s) {
    float* a = &st[s][ml][kg * KPT];
    *reinterpret_cast<float4*>(a) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(a + 4) = make_float4(v[4], v[5], v[6], v[7]);
  };
  // One 16-byte chunk of the weight per thread: row j = tid / 4, k chunk tid % 4.
  auto copy_b = [&](uint s, uint k0) {
    const uint j = tid / 4u, k = k0 + tid % 4u * 4u;
    const bool in = n0 + j < p.N && k < p.K;
    cp_async16(smem_u32(&st[s][BM + j][tid % 4u * 4u]),
               in ? wb + uint64_t(n0 + j) * p.w_ld + k : wb, in ? min(16u, (p.K - k) * 4u) : 0u);
  };
  auto multiply = [&](uint s) {
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float a[8][4], b[4][4];
#pragma unroll
      for (int i = 0; i < 8; ++i)
        *reinterpret_cast<float4*>(a[i]) =
            *reinterpret_cast<const float4*>(&st[s][tr + 16 * i][kq * 4]);
#pragma unroll
      for (int j = 0; j < 4; ++j)
        *reinterpret_cast<float4*>(b[j]) =
            *reinterpret_cast<const float4*>(&st[s][BM + tc * 4 + j][kq * 4]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i * 4 + j] = fmaf(a[i][kk], b[j][kk], acc[i * 4 + j]);
    }
  };
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  pixel.gather(table, kg * KPT, p, v);
  copy_b(0, 0);
  cp_async_commit();
  put(0);
  cp_async_wait<0>();
  __syncthreads();
  for (uint kt = 0; kt < KT; ++kt) {
    const bool more = kt + 1 < KT;
    // Stage (kt + 1) % 2 was last read in the previous k-tile, before its closing barrier.
    if (more) {
      pixel.gather(table, (kt + 1) * BK + kg * KPT, p, v);
      copy_b((kt + 1) & 1u, (kt + 1) * BK);
    }
    cp_async_commit();
    multiply(kt & 1u);
    if (more) put((kt + 1) & 1u);
    cp_async_wait<0>();
    __syncthreads();
  }
}
