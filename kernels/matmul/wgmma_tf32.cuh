// Hopper's TF32 warpgroup tile for an N-major B (after wgmma_tma.cuh).
// wgmma reads TF32 operands from shared memory K-major only, and B of a [M, K] x [K, N] product
// is N-major. So the tile computes C^T = B^T A^T: B^T is the register operand, which each thread
// reads transposed out of B's staged boxes, and A^T (K-major, as A is stored) the shared-memory
// operand. The copy engine stages A's BM x 32 box and B's 32 x 32 boxes (128-byte swizzled) per
// k-tile, as wgmma_tma_tile does. Consumer warp w owns C's columns n0 + 16 w .. + 15 and all BM
// rows: accumulator d[4 j + c] is C(8 j + 2 t + c % 2, 16 w + g + 8 (c / 2)) of the tile, with
// g = lane / 4 and t = lane % 4 (the C layout of wgmma, transposed).
//
// A register operand must not change while a wgmma that reads it is in flight. Every k8 step is
// its own group, with its own fragment registers (two sets, alternating): the wait after issuing
// step s leaves only s in flight, and the set of step s - 1, now free, is kept live until then.
template <int N>
struct WgmmaTf32;  // WgmmaTf32<N>::op: m64nNk8, A from registers (jit/codegen/cuda_tensor_core.cc)

__device__ __forceinline__ float lds_f32(uint addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
// Keeps a register operand's registers from being reused before this point.
__device__ __forceinline__ void wg_keep(const uint (&f)[4]) {
  asm volatile("" ::"r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]) : "memory");
}
// Byte offset of B element (k, n), k < 32, in a k-tile's staged boxes of 32 columns (4096 bytes
// each): chunk (n % 32) / 4 of k-row k sits at chunk ((n % 32) / 4) ^ (k % 8).
__device__ __forceinline__ uint tf32_b_elem(uint k, uint n) {
  return (n >> 5) * 4096u + k * 128u + ((((n >> 2) & 7u) ^ (k & 7u)) << 4) + (n & 3u) * 4u;
}
// One k8 step: loads fragment f (B^T rows n, n + 8 by k-columns t, t + 4 of the step), issues
// its wgmma against A's rows at sa, and waits for the previous step's; `other` is that step's
// fragment.
template <int BM>
__device__ __forceinline__ void tf32_step(float* acc, uint (&f)[4], const uint (&other)[4], uint sb,
                                          const uint (&off)[4], uint sa) {
#pragma unroll
  for (int i = 0; i < 4; ++i) f[i] = to_tf32(lds_f32(sb + off[i]));
  wg_fence();
  WgmmaTf32<BM>::op(acc, f, wg_desc(sa, 16, 1024));
  wg_commit();
  wg_wait<1>();
  wg_keep(other);
}
// Cluster helpers: this workgroup's rank in its cluster, the peer's address of a shared
// variable, an arrival on the peer's barrier, the cluster-wide barrier, a multicast copy.
__device__ __forceinline__ uint cluster_rank() {
  uint r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint peer_address(uint addr, uint rank) {
  uint r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void mbar_arrive_remote(uint cluster_addr) {
  // (No .release.cluster: that form fences the whole GPU before every arrival.)
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_addr) : "memory");
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}
// The box at (c0, c1) into shared memory at dst of every workgroup in `mask`, each completing
// bytes on its own barrier at the same offset as bar.
__device__ __forceinline__ void tma_load_multicast(uint dst, const TensorMap* map, uint c0, uint c1,
                                                   uint bar, unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
      "cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
// CLUSTER 2: clusters of two workgroups whose tiles share A's rows (the same m0; lower_matmul_tile
// pairs them): each copies half of A's box into both workgroups' stages (multicast), halving A's
// reads from L2, and its own B. A stage is refilled only after both workgroups' consumers have
// released it (the empty barriers count both); the two synchronise before their first copy and
// before they end. H100 (session 24, call 9), alternated twice: 4096 0.428 and 0.429 ms against
// 0.433 and 0.432 alone, 8192 3.20 and 3.34 against 3.40 and 3.42. The peer's stage is released
// by a plain remote arrive: with .release.cluster it fenced the whole GPU at every arrival, and
// the clusters ran 40% slower than workgroups alone (calls 5 and 6).
template <int WARPS, int BM, int STAGES, int CLUSTER>
__device__ __forceinline__ void wgmma_tf32_nmajor_tile(const TensorMap* ta, const TensorMap* tb,
                                                       uint K, uint m0, uint n0, float* acc) {
  constexpr int BK = 32, BN = WARPS * 16, CONSUMERS = WARPS * 32;
  constexpr uint A_BYTES = BM * 128, STAGE = (BM + BN) * 128, A_PART = A_BYTES / CLUSTER;
  static_assert(BN % 32 == 0 && BM % 64 == 0 && BM <= 256, "TF32 N-major tile shape");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of one or two workgroups");
  extern __shared__ __align__(128) unsigned char smem[];  // STAGES * STAGE + 1024 bytes
  __shared__ __align__(8) uint64_t bars[2 * STAGES];      // full[STAGES], then empty[STAGES]
  const uint s0 = (smem_u32(smem) + 1023u) & ~1023u;
  const uint full = smem_u32(bars), empty = full + STAGES * 8;
  const uint KT = (K + BK - 1) / BK;
  const uint rank = CLUSTER > 1 ? cluster_rank() : 0u;
  ring_init<STAGES>(full, empty, WARPS * CLUSTER);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  if (CLUSTER > 1) {
    cluster_sync();  // the peer's barriers exist before anything arrives on them
  } else {
    __syncthreads();
  }
  if (threadIdx.x >= CONSUMERS) {
    if (threadIdx.x == CONSUMERS) {
      for (uint kt = 0; kt < KT; ++kt) {
        const uint s = kt % STAGES, st = s0 + s * STAGE, bar = full + s * 8;
        if (kt >= STAGES) mbar_wait(empty + s * 8, (kt / STAGES - 1) & 1u);
        mbar_expect(bar, STAGE);
        if (CLUSTER > 1) {
          tma_load_multicast(st + rank * A_PART, ta, kt * BK, m0 + rank * (BM / CLUSTER), bar,
                             (unsigned short)((1u << CLUSTER) - 1u));
        } else {
          tma_load(st, ta, kt * BK, m0, bar);
        }
#pragma unroll
        for (int j = 0; j < BN / 32; ++j)
          tma_load(st + A_BYTES + j * 4096, tb, n0 + j * 32, kt * BK, bar);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < BM / 2; ++i) acc[i] = 0.0f;
    const uint lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
    const uint n = (threadIdx.x >> 5) * 16u + g;
    // Fragment register i: B^T row n + 8 (i % 2), k-column t + 4 (i / 2) of the step.
    const uint off[4] = {tf32_b_elem(t, n), tf32_b_elem(t, n + 8), tf32_b_elem(t + 4, n),
                         tf32_b_elem(t + 4, n + 8)};
    // Releasing a stage: this workgroup's barrier and (clusters) the peer's.
    const uint peer_empty = CLUSTER > 1 ? peer_address(empty, rank ^ 1u) : 0u;
    auto release = [&](uint s) {
      if (lane != 0u) return;
      mbar_arrive(empty + s * 8);
      if (CLUSTER > 1) mbar_arrive_remote(peer_empty + s * 8);
    };
    uint f0[4] = {0, 0, 0, 0}, f1[4] = {0, 0, 0, 0};
    for (uint kt = 0; kt < KT; ++kt) {
      const uint s = kt % STAGES, sa = s0 + s * STAGE, sb = sa + A_BYTES;
      mbar_wait(full + s * 8, (kt / STAGES) & 1u);
      // Step 0's wait leaves the previous k-tile's steps done: its stage is free.
      tf32_step<BM>(acc, f0, f1, sb, off, sa);
      if (kt > 0) release((kt - 1) % STAGES);
      tf32_step<BM>(acc, f1, f0, sb + 1024, off, sa + 32);
      tf32_step<BM>(acc, f0, f1, sb + 2048, off, sa + 64);
      tf32_step<BM>(acc, f1, f0, sb + 3072, off, sa + 96);
    }
    wg_wait<0>();
    wg_pin<BM / 2>(acc);
    wg_keep(f0);
    wg_keep(f1);
  }
  // Every copy into this workgroup and every arrival on its barriers has completed: the peer may
  // end, and the barriers be set up again for a next tile. The outputs are stored from the
  // accumulators after this (lower_matmul_tile: in the transposed layout a warp's f32 store
  // still fills whole 32-byte sectors where C's rows start on 32-byte boundaries, and the staged
  // epilogue measured 2% slower at 4096 and 8192).
  if (CLUSTER > 1) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  ring_inval<STAGES>(full);
}
