// Fused scaled-dot-product attention, backward, on tensor cores (mma.sync m16n8k16), in two
// kernels that each recompute the probabilities P = exp(q k^T * scale - lse) block by block from
// the forward's log-sum-exp (the score matrix never reaches memory):
//  - flash_bwd_dq_block: per block of 64 query rows, over the key blocks:
//      dP = dO V^T, dS = P (dP - delta), dQ = scale dS K;
//  - flash_bwd_dkv_block: per block of 64 keys, over the query blocks (transposed products, the
//    keys as rows): dV = P^T dO, dK = scale dS^T Q.
// delta = rowsum(dO o O) per query row, computed before (an ordinary row reduction). dK and dV
// are per query head: grouped-query callers sum them over each group. Needs mma_sync.cuh and
// flash_fwd.cuh (its staging, swizzle and conversion helpers) before it.
struct FlashBwdArgs {
  const unsigned char *q, *k, *v, *dout;
  const float *lse, *delta;  // [batch * heads * seq_q]: natural log-sum-exp; rowsum(dO o O)
  unsigned char *dq, *dk, *dv;
  // Element strides of batch, head and row of each operand (dk and dv share theirs; both have
  // `heads` heads).
  uint q_sb, q_sh, q_ss, k_sb, k_sh, k_ss, v_sb, v_sh, v_ss, do_sb, do_sh, do_ss;
  uint dq_sb, dq_sh, dq_ss, dk_sb, dk_sh, dk_ss;
  uint batch, heads, kv_heads, seq_q, seq_k;
  float scale, scale_log2;
};

template <int D>
struct FlashBwd {
  static constexpr int kWarps = 4, kThreads = 128, kBlock = 64;  // rows per block, either side
  static constexpr int kTile = kBlock * D * 2;                   // one staged 64-row operand
  // Two operands kept (Q, dO or K, V) and two stages of two streamed ones.
  static constexpr int kSharedBytes = 6 * kTile;
};

// A warp's 16 rows of a staged tile as A fragments, one per k-step of 16.
template <int D>
__device__ __forceinline__ void flash_a_frags(uint tile, uint row0, uint (&f)[D / 16][4]) {
  const uint lane = threadIdx.x & 31u, j = lane >> 3, r = lane & 7u;
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks)
    ldsm_x4<false>(tile + flash_elem<D>(row0 + (j & 1u) * 8 + r, ks * 16 + (j >> 1) * 8), f[ks]);
}

// acc[16 x 64] += A[16 x D] B^T where B's 64 rows of D are staged at `tile` (B K-major).
template <int KIND, int D>
__device__ __forceinline__ void flash_mma_abt(float (&acc)[8][4], const uint (&a)[D / 16][4],
                                              uint tile) {
  const uint lane = threadIdx.x & 31u, j = lane >> 3, r = lane & 7u;
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks)
#pragma unroll
    for (int ni = 0; ni < 8; ni += 2) {
      uint b[4];
      ldsm_x4<false>(tile + flash_elem<D>(ni * 8 + (j >> 1) * 8 + r, ks * 16 + (j & 1u) * 8), b);
      mma_op<KIND>(acc[ni], a[ks], b);
      mma_op<KIND>(acc[ni + 1], a[ks], b + 2);
    }
}

// acc[16 x D] += P[16 x 64] B where P is in accumulator layout and B's 64 rows of D are staged
// at `tile` (read transposed).
template <int KIND, int D>
__device__ __forceinline__ void flash_mma_pb(float (&acc)[D / 8][4], const float (&p)[8][4],
                                             uint tile) {
  const uint lane = threadIdx.x & 31u, j = lane >> 3, r = lane & 7u;
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    uint pa[4];
    pa[0] = flash_pack(p[2 * kk][0], p[2 * kk][1], KIND);
    pa[1] = flash_pack(p[2 * kk][2], p[2 * kk][3], KIND);
    pa[2] = flash_pack(p[2 * kk + 1][0], p[2 * kk + 1][1], KIND);
    pa[3] = flash_pack(p[2 * kk + 1][2], p[2 * kk + 1][3], KIND);
#pragma unroll
    for (int di = 0; di < D / 8; di += 2) {
      uint b[4];
      ldsm_x4<true>(tile + flash_elem<D>(kk * 16 + (j & 1u) * 8 + r, di * 8 + (j >> 1) * 8), b);
      mma_op<KIND>(acc[di], pa, b);
      mma_op<KIND>(acc[di + 1], pa, b + 2);
    }
  }
}

// Stores a warp's 16 x D accumulators times `scale` as rows row0.. of `out` (row stride ss).
template <int KIND, int D>
__device__ __forceinline__ void flash_store_rows(unsigned char* out, uint ss, uint row0, uint rows,
                                                 const float (&acc)[D / 8][4], float scale) {
  const uint lane = threadIdx.x & 31u, g = lane >> 2, t = lane & 3u;
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const uint row = row0 + g + hr * 8;
    if (row >= rows) continue;
#pragma unroll
    for (int di = 0; di < D / 8; ++di) {
      *reinterpret_cast<uint*>(out + (uint64_t(row) * ss + di * 8 + t * 2) * 2) =
          flash_pack(acc[di][hr * 2] * scale, acc[di][hr * 2 + 1] * scale, KIND);
    }
  }
}

// dQ for query block tile / (batch * heads), head tile % (batch * heads).
template <int KIND, int D, bool CAUSAL>
__device__ __forceinline__ void flash_bwd_dq_block(const FlashBwdArgs& a, uint tile) {
  using T = FlashBwd<D>;
  constexpr int DF = D / 8;
  extern __shared__ __align__(128) unsigned char flash_smem[];
  const uint s_q = smem_u32(flash_smem), s_do = s_q + T::kTile, s_kv = s_do + T::kTile;
  const uint lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3u;
  const uint bhs = a.batch * a.heads, bh = tile % bhs, b = bh / a.heads, h = bh % a.heads;
  const uint kh = h / (a.heads / a.kv_heads), m0 = (tile / bhs) * T::kBlock;
  const uint64_t qoff = (uint64_t(b) * a.q_sb + uint64_t(h) * a.q_sh) * 2;
  const uint64_t dooff = (uint64_t(b) * a.do_sb + uint64_t(h) * a.do_sh) * 2;
  const uint64_t dqoff = (uint64_t(b) * a.dq_sb + uint64_t(h) * a.dq_sh) * 2;
  const unsigned char* kb = a.k + (uint64_t(b) * a.k_sb + uint64_t(kh) * a.k_sh) * 2;
  const unsigned char* vb = a.v + (uint64_t(b) * a.v_sb + uint64_t(kh) * a.v_sh) * 2;
  const int shift = int(a.seq_k) - int(a.seq_q);
  uint n_end = a.seq_k;
  if (CAUSAL) n_end = uint(max(0, min(int(a.seq_k), int(m0) + T::kBlock + shift)));
  const uint blocks = (n_end + 63) / 64;
  flash_stage<D, 64, T::kThreads>(s_q, a.q + qoff, a.q_ss, m0, a.seq_q);
  flash_stage<D, 64, T::kThreads>(s_do, a.dout + dooff, a.do_ss, m0, a.seq_q);
  if (blocks > 0) {
    flash_stage<D, 64, T::kThreads>(s_kv, kb, a.k_ss, 0, a.seq_k);
    flash_stage<D, 64, T::kThreads>(s_kv + T::kTile, vb, a.v_ss, 0, a.seq_k);
  }
  cp_async_commit();
  const uint wm = warp * 16;
  // Per thread rows g and g + 8 of the warp: log2-scaled lse (+inf past seq_q: P = 0) and delta.
  float lse2[2], delta[2];
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const uint row = m0 + wm + g + hr * 8;
    const bool in = row < a.seq_q;
    lse2[hr] = in ? a.lse[uint64_t(bh) * a.seq_q + row] * 1.4426950408889634f : 0.f;
    delta[hr] = in ? a.delta[uint64_t(bh) * a.seq_q + row] : 0.f;
  }
  float acc[DF][4];
#pragma unroll
  for (int di = 0; di < DF; ++di) acc[di][0] = acc[di][1] = acc[di][2] = acc[di][3] = 0.f;
  uint qf[D / 16][4], dof[D / 16][4];
  for (uint nb = 0; nb < blocks; ++nb) {
    const uint stage = nb & 1u;
    if (nb + 1 < blocks) {
      const uint other = s_kv + (stage ^ 1u) * 2u * T::kTile;
      flash_stage<D, 64, T::kThreads>(other, kb, a.k_ss, (nb + 1) * 64, a.seq_k);
      flash_stage<D, 64, T::kThreads>(other + T::kTile, vb, a.v_ss, (nb + 1) * 64, a.seq_k);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (nb == 0) {
      flash_a_frags<D>(s_q, wm, qf);
      flash_a_frags<D>(s_do, wm, dof);
    }
    const uint s_k = s_kv + stage * 2u * T::kTile, s_v = s_k + T::kTile, n0 = nb * 64;
    float s[8][4], dp[8][4];
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[ni][e] = dp[ni][e] = 0.f;
    flash_mma_abt<KIND, D>(s, qf, s_k);
    flash_mma_abt<KIND, D>(dp, dof, s_v);
    // dS = P (dP - delta), P = 0 where the key is hidden or past the end.
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = int(n0 + ni * 8 + t * 2 + (e & 1)), hr = e >> 1;
        const int row = int(m0 + wm + g + hr * 8);
        const bool hidden =
            col >= int(a.seq_k) || row >= int(a.seq_q) || (CAUSAL && col > row + shift);
        const float p = hidden ? 0.f : flash_exp2(s[ni][e] * a.scale_log2 - lse2[hr]);
        s[ni][e] = p * (dp[ni][e] - delta[hr]);
      }
    flash_mma_pb<KIND, D>(acc, s, s_k);  // dQ += dS K
    __syncthreads();
  }
  cp_async_wait<0>();
  flash_store_rows<KIND, D>(a.dq + dqoff, a.dq_ss, m0 + wm, a.seq_q, acc, a.scale);
}

// dK and dV (per query head) for key block tile / (batch * heads), head tile % (batch * heads).
template <int KIND, int D, bool CAUSAL>
__device__ __forceinline__ void flash_bwd_dkv_block(const FlashBwdArgs& a, uint tile) {
  using T = FlashBwd<D>;
  constexpr int DF = D / 8;
  extern __shared__ __align__(128) unsigned char flash_smem[];
  const uint s_k = smem_u32(flash_smem), s_v = s_k + T::kTile, s_qd = s_v + T::kTile;
  const uint lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3u;
  const uint bhs = a.batch * a.heads, bh = tile % bhs, b = bh / a.heads, h = bh % a.heads;
  const uint kh = h / (a.heads / a.kv_heads), n0 = (tile / bhs) * T::kBlock;
  const uint64_t qoff = (uint64_t(b) * a.q_sb + uint64_t(h) * a.q_sh) * 2;
  const uint64_t dooff = (uint64_t(b) * a.do_sb + uint64_t(h) * a.do_sh) * 2;
  const uint64_t koff = (uint64_t(b) * a.k_sb + uint64_t(kh) * a.k_sh) * 2;
  const uint64_t voff = (uint64_t(b) * a.v_sb + uint64_t(kh) * a.v_sh) * 2;
  const uint64_t dkoff = (uint64_t(b) * a.dk_sb + uint64_t(h) * a.dk_sh) * 2;
  const unsigned char *qb = a.q + qoff, *dob = a.dout + dooff;
  const int shift = int(a.seq_k) - int(a.seq_q);
  // Query rows that see some key of this block: i >= n0 - shift when causal.
  const uint first = CAUSAL ? uint(max(0, int(n0) - shift)) / 64u : 0u;
  const uint blocks = (a.seq_q + 63) / 64;
  flash_stage<D, 64, T::kThreads>(s_k, a.k + koff, a.k_ss, n0, a.seq_k);
  flash_stage<D, 64, T::kThreads>(s_v, a.v + voff, a.v_ss, n0, a.seq_k);
  if (first < blocks) {
    flash_stage<D, 64, T::kThreads>(s_qd, qb, a.q_ss, first * 64, a.seq_q);
    flash_stage<D, 64, T::kThreads>(s_qd + T::kTile, dob, a.do_ss, first * 64, a.seq_q);
  }
  cp_async_commit();
  const uint wn = warp * 16;  // the warp's first key in the block
  float dk[DF][4], dv[DF][4];
#pragma unroll
  for (int di = 0; di < DF; ++di)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk[di][e] = dv[di][e] = 0.f;
  uint kf[D / 16][4], vf[D / 16][4];
  for (uint mb = first; mb < blocks; ++mb) {
    const uint stage = (mb - first) & 1u;
    if (mb + 1 < blocks) {
      const uint other = s_qd + (stage ^ 1u) * 2u * T::kTile;
      flash_stage<D, 64, T::kThreads>(other, qb, a.q_ss, (mb + 1) * 64, a.seq_q);
      flash_stage<D, 64, T::kThreads>(other + T::kTile, dob, a.do_ss, (mb + 1) * 64, a.seq_q);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (mb == first) {
      flash_a_frags<D>(s_k, wn, kf);
      flash_a_frags<D>(s_v, wn, vf);
    }
    const uint s_q = s_qd + stage * 2u * T::kTile, s_do = s_q + T::kTile, m0 = mb * 64;
    // Transposed: rows are the warp's keys, columns the block's queries.
    float st[8][4], dpt[8][4];
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) st[ni][e] = dpt[ni][e] = 0.f;
    flash_mma_abt<KIND, D>(st, kf, s_q);    // S^T = K Q^T
    flash_mma_abt<KIND, D>(dpt, vf, s_do);  // dP^T = V dO^T
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = int(m0 + ni * 8 + t * 2 + (e & 1));  // query
        const int row = int(n0 + wn + g + (e >> 1) * 8);     // key
        const bool hidden =
            col >= int(a.seq_q) || row >= int(a.seq_k) || (CAUSAL && row > col + shift);
        float p = 0.f, d = 0.f;
        if (!hidden) {
          const uint64_t r = uint64_t(bh) * a.seq_q + col;
          p = flash_exp2(st[ni][e] * a.scale_log2 - a.lse[r] * 1.4426950408889634f);
          d = a.delta[r];
        }
        st[ni][e] = p;                      // P^T
        dpt[ni][e] = p * (dpt[ni][e] - d);  // dS^T
      }
    flash_mma_pb<KIND, D>(dv, st, s_do);  // dV += P^T dO
    flash_mma_pb<KIND, D>(dk, dpt, s_q);  // dK += dS^T Q
    __syncthreads();
  }
  cp_async_wait<0>();
  flash_store_rows<KIND, D>(a.dk + dkoff, a.dk_ss, n0 + wn, a.seq_k, dk, a.scale);
  flash_store_rows<KIND, D>(a.dv + dkoff, a.dk_ss, n0 + wn, a.seq_k, dv, 1.f);
}
