// Hopper's warpgroup tiles (after mma_sync.cuh). Wgmma<N>::op, one m64nNk16 wgmma (m64nNk8 for
// TF32) naming every accumulator register, is generated per width N by
// jit/codegen/cuda_tensor_core.cc after this file.
template <int N>
struct Wgmma;
// Warpgroup tile (wgmma.mma_async, sm_90a): each warpgroup (two or three) owns 64 rows of the
// block and all its BN columns; the tensor cores read both operands from shared memory
// through descriptors. Copies (cp.async, every thread) run STAGES - 2 k-tiles ahead and one
// group of wgmmas stays in flight while the next is issued, so a stage is refilled only after
// the barrier that follows every warpgroup's wait for the group that read it.
__device__ __forceinline__ void wg_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wg_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Copies land through the generic proxy; wgmma reads through the async one.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// Keeps the compiler from moving accumulator accesses across an asynchronous wgmma.
template <int N>
__device__ __forceinline__ void wg_pin(float* d) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// Shared-memory matrix descriptor with the 128-byte swizzle: start address, leading and stride
// byte offsets, each in 16-byte units.
__device__ __forceinline__ uint64_t wg_desc(uint addr, uint lbo, uint sbo) {
  return uint64_t((addr & 0x3FFFFu) >> 4) | uint64_t(lbo >> 4) << 16 | uint64_t(sbo >> 4) << 32 |
         1ull << 62;
}
// Issues one k-tile's wgmmas (four: 32 bytes of k each, k16 of f16/bf16 or k8 of TF32) on the
// staged A rows at sa and B at sb as one group, then waits until only that group is in flight:
// the previous k-tile's group is done. TF32 reads both operands K-major only.
template <int KIND, bool B_K, int BN, int BK>
__device__ __forceinline__ void wg_ktile(float* acc, uint sa, uint sb) {
  static_assert(KIND != 2 || B_K, "wgmma reads TF32 operands K-major only");
  wg_pin<BN / 2>(acc);
  wg_fence();
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    // A: 8-row groups 1024 bytes apart; k advances 32 bytes within the swizzled row. B
    // N-major (16-bit types): 64-column atoms BK k-rows apart, 8-k-row groups 1024 bytes apart.
    const uint64_t da = wg_desc(sa + s * 32, 16, 1024);
    const uint64_t db =
        B_K ? wg_desc(sb + s * 32, 16, 1024) : wg_desc(sb + s * 2048, BK * 128, 1024);
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
  // (TF32 warpgroup tiles always take the copy engine: kernels/matmul/operands.cc.)
  static_assert(KIND != 2, "the cp.async wgmma tile stages 16-bit elements");
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
      mma_stage<B_K, BN, ES, THREADS, 128, true>(s0 + s * STAGE + A_BYTES, b, b_ld, n0, N, s * BK,
                                                 K);
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
