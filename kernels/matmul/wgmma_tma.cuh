// Hopper's warpgroup tiles fed by the copy engine (after wgmma.cuh).
// Warpgroup tile fed by the copy engine (sm_90a). The first WARPS / 4 warpgroups multiply as
// wgmma_tile's do; one thread of the warpgroup after them, the producer, issues the bulk tensor
// copies of each k-tile's A box and B boxes (tensor maps tm0, tm1: 128-byte swizzled, zeros
// outside the matrix) into a STAGES-deep ring. Stage s has two mbarriers: full[s] completes when
// its bytes have landed, empty[s] when every consumer warp's wgmmas that read it are done. No
// consumer thread computes a copy address and no block-wide barrier runs inside the k loop.
struct __align__(64) TensorMap {
  uint64_t v[16];
};
__device__ __forceinline__ void mbar_init(uint bar, uint count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_inval(uint bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect(uint bar, uint bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Waits for the completion of the barrier's phase of parity `parity`.
__device__ __forceinline__ void mbar_wait(uint bar, uint parity) {
  uint done = 0;
  while (!done)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, "
        "1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
}
// The box at (column c0, row c1) of the map's matrix into shared memory at dst.
__device__ __forceinline__ void tma_load(uint dst, const TensorMap* map, uint c0, uint c1,
                                         uint bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// A copy ring's barriers (thread 0): full[s] completes when stage s's bytes have landed (one
// arrival, the producer's), empty[s] when `releasers` consumer warps are done reading it.
template <int STAGES>
__device__ __forceinline__ void ring_init(uint full, uint empty, uint releasers) {
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int s = 0; s < STAGES; ++s) {
    mbar_init(full + s * 8, 1);
    mbar_init(empty + s * 8, releasers);
  }
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Invalidates both barrier arrays (full, then empty right after it) once every copy is waited
// for, so the next tile of a grid-stride loop can set them up again.
template <int STAGES>
__device__ __forceinline__ void ring_inval(uint full) {
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int s = 0; s < 2 * STAGES; ++s) mbar_inval(full + s * 8);
}
template <int KIND, bool B_K, int WARPS, int BN, int STAGES>
__device__ __forceinline__ void wgmma_tma_tile(const TensorMap* ta, const TensorMap* tb, uint K,
                                               uint m0, uint n0, float* acc) {
  constexpr int BK = KIND == 2 ? 32 : 64, BM = WARPS * 16, CONSUMERS = WARPS * 32;  // 128 bytes
  constexpr uint A_BYTES = BM * 128, STAGE = (BM + BN) * 128;
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * STAGE + 1024 bytes
  __shared__ __align__(8) uint64_t bars[2 * STAGES];      // full[STAGES], then empty[STAGES]
  const uint s0 = (smem_u32(smem) + 1023u) & ~1023u;      // swizzle atoms: 1024-byte aligned
  const uint full = smem_u32(bars), empty = full + STAGES * 8;
  const uint KT = (K + BK - 1) / BK;
  ring_init<STAGES>(full, empty, WARPS);
  // The previous tile's staged epilogue used this shared memory through ordinary loads and
  // stores; the copies below write it through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
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
          for (int j = 0; j < BN / 64; ++j)
            tma_load(st + A_BYTES + j * 8192, tb, n0 + j * 64, kt * BK, bar);
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
  ring_inval<STAGES>(full);
}
