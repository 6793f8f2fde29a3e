// Fused scaled-dot-product attention, forward, on tensor cores (mma.sync m16n8k16, sm_80 on):
// one workgroup of 4 warps per block of query rows of one (batch, head); the key/value blocks
// stream through a two-stage cp.async pipeline in shared memory; the scores of a block live in
// registers only, normalised by an online softmax (running row maximum and sum), and become the
// A operand of P V without leaving the registers (an m16n8 accumulator pair is an m16k16 A
// fragment). The sequence x sequence score matrix never reaches memory.
//
// Needs mma_sync.cuh's helpers (smem_u32, cp_async16, ldsm_x4, mma_op) before it. Operands are
// [batch, heads, seq, D] with rows of D contiguous elements (keys and values [batch, kv_heads,
// seq_k, D]; query head h reads kv head h / (heads / kv_heads)). Causal masking hides key j from
// query i when j > i + seq_k - seq_q (the last query row sees every key, as in incremental
// decoding). A row that sees no key gives zeros. `lse`, when not null, receives each row's
// log-sum-exp of the scaled scores (natural log; -inf for a row that sees no key), which the
// backward pass reads.
template <int KIND, int D>
struct FlashFwd {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMFrags = D <= 64 ? 2 : 1;        // 16-row fragments per warp
  static constexpr int kBlockM = kWarps * kMFrags * 16;  // query rows per workgroup
  static constexpr int kBlockN = 64;                     // keys per pipeline stage
  static constexpr int kRowBytes = D * 2;
  static constexpr int kQBytes = kBlockM * kRowBytes;
  static constexpr int kKvBytes = kBlockN * kRowBytes;  // one of K or V, one stage
  static constexpr int kSharedBytes = kQBytes + 4 * kKvBytes;
};

// Byte offset of (row, element e) in a staged tile of D-element rows: 16-byte chunks XOR-swizzled
// by row, so that ldmatrix's eight rows of one chunk column hit eight different bank groups.
template <int D>
__device__ __forceinline__ uint flash_elem(uint row, uint e) {
  return row * uint(D * 2) + ((((e >> 3) ^ (row & 7u))) << 4) + (e & 7u) * 2u;
}

// Copies rows [row0, row0 + ROWS) of a [rows, D] operand (rows `stride` elements apart) into the
// staged tile at `dst`; rows at or past `rows` are zero-filled.
template <int D, int ROWS, int THREADS>
__device__ __forceinline__ void flash_stage(uint dst, const unsigned char* base, uint stride,
                                            uint row0, uint rows) {
  constexpr uint CPR = D / 8, CHUNKS = ROWS * CPR;
#pragma unroll
  for (uint i = 0; i < (CHUNKS + THREADS - 1) / THREADS; ++i) {
    const uint q = threadIdx.x + i * THREADS;
    if (CHUNKS % THREADS != 0 && q >= CHUNKS) break;
    const uint r = q / CPR, c = q % CPR, row = row0 + r;
    const bool in = row < rows;
    const unsigned char* src = base + (in ? (uint64_t(row) * stride + c * 8) * 2 : 0);
    cp_async16(dst + flash_elem<D>(r, c * 8), src, in ? 16u : 0u);
  }
}

// -inf without <math.h> (NVRTC has no INFINITY).
__device__ __forceinline__ float flash_neg_inf() { return __int_as_float(0xff800000); }

__device__ __forceinline__ float flash_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ uint flash_pack(float lo, float hi, int kind) {
  uint r;
  if (kind == 0)
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Where the operands are: element strides of batch, head and row (the D elements of a row are
// contiguous; strides and offsets multiples of 8, for 16-byte copies), sizes and the scale.
struct FlashArgs {
  const unsigned char *q, *k, *v;
  unsigned char* o;
  float* lse;  // [batch * heads * seq_q] or null
  uint q_sb, q_sh, q_ss, k_sb, k_sh, k_ss, v_sb, v_sh, v_ss, o_sb, o_sh, o_ss;
  uint batch, heads, kv_heads, seq_q, seq_k;
  float scale_log2;  // scale * log2(e): scores go through exp2
};

// Output tile `tile` of the attention: tile = query block * (batch * heads) + batch * heads +
// head, where causal query blocks run last-first (the last see the most keys).
template <int KIND, int D, bool CAUSAL>
__device__ __forceinline__ void flash_fwd_block(const FlashArgs& a, uint tile) {
  using T = FlashFwd<KIND, D>;
  constexpr int MF = T::kMFrags, BN = T::kBlockN, NF = BN / 8, DF = D / 8, KS = D / 16;
  extern __shared__ __align__(128) unsigned char flash_smem[];
  const uint s_q = smem_u32(flash_smem);
  const uint s_kv = s_q + T::kQBytes;  // stage s: K at s_kv + 2s * kKvBytes, V after it
  const uint lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const uint g = lane >> 2, t = lane & 3u;
  const uint seq_q = a.seq_q, seq_k = a.seq_k, heads = a.heads;
  const float scale_log2 = a.scale_log2;
  const uint bhs = a.batch * heads, tiles_m = (seq_q + T::kBlockM - 1) / T::kBlockM;
  const uint mb = CAUSAL ? tiles_m - 1u - tile / bhs : tile / bhs;
  const uint bh = tile % bhs, b = bh / heads, h = bh % heads;
  const uint kh = h / (heads / a.kv_heads);
  const uint m0 = mb * T::kBlockM;
  const unsigned char* qb = a.q + (uint64_t(b) * a.q_sb + uint64_t(h) * a.q_sh) * 2;
  const unsigned char* kb = a.k + (uint64_t(b) * a.k_sb + uint64_t(kh) * a.k_sh) * 2;
  const unsigned char* vb = a.v + (uint64_t(b) * a.v_sb + uint64_t(kh) * a.v_sh) * 2;
  unsigned char* ob = a.o + (uint64_t(b) * a.o_sb + uint64_t(h) * a.o_sh) * 2;
  // Keys this block sees: all, or up to the causal diagonal of its last row.
  const int shift = int(seq_k) - int(seq_q);
  uint n_end = seq_k;
  if (CAUSAL) {
    const int last = int(m0) + T::kBlockM - 1 + shift + 1;
    n_end = uint(max(0, min(int(seq_k), last)));
  }
  const uint blocks = (n_end + BN - 1) / BN;

  flash_stage<D, T::kBlockM, T::kThreads>(s_q, qb, a.q_ss, m0, seq_q);
  if (blocks > 0) {
    flash_stage<D, BN, T::kThreads>(s_kv, kb, a.k_ss, 0, seq_k);
    flash_stage<D, BN, T::kThreads>(s_kv + T::kKvBytes, vb, a.v_ss, 0, seq_k);
  }
  cp_async_commit();

  float acc[MF][DF][4];
  float row_max[MF][2], row_sum[MF][2];
#pragma unroll
  for (int mi = 0; mi < MF; ++mi) {
#pragma unroll
    for (int di = 0; di < DF; ++di)
      acc[mi][di][0] = acc[mi][di][1] = acc[mi][di][2] = acc[mi][di][3] = 0.f;
    row_max[mi][0] = row_max[mi][1] = flash_neg_inf();
    row_sum[mi][0] = row_sum[mi][1] = 0.f;
  }
  uint qf[MF][KS][4];
  const uint wm = warp * MF * 16;  // the warp's first row in the block

  for (uint nb = 0; nb < blocks; ++nb) {
    const uint stage = nb & 1u;
    if (nb + 1 < blocks) {  // the next block into the other stage (freed by the last barrier)
      const uint other = s_kv + (stage ^ 1u) * 2u * T::kKvBytes;
      flash_stage<D, BN, T::kThreads>(other, kb, a.k_ss, (nb + 1) * BN, seq_k);
      flash_stage<D, BN, T::kThreads>(other + T::kKvBytes, vb, a.v_ss, (nb + 1) * BN, seq_k);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (nb == 0) {  // the query fragments stay in registers for the whole key loop
      const uint j = lane >> 3, r = lane & 7u;
#pragma unroll
      for (int mi = 0; mi < MF; ++mi)
#pragma unroll
        for (int ks = 0; ks < KS; ++ks)
          ldsm_x4<false>(
              s_q + flash_elem<D>(wm + mi * 16 + (j & 1u) * 8 + r, ks * 16 + (j >> 1) * 8),
              qf[mi][ks]);
    }
    const uint s_k = s_kv + stage * 2u * T::kKvBytes, s_v = s_k + T::kKvBytes;
    const uint n0 = nb * BN;

    // S = Q K^T for the warp's rows and the block's keys.
    float s[MF][NF][4];
#pragma unroll
    for (int mi = 0; mi < MF; ++mi)
#pragma unroll
      for (int ni = 0; ni < NF; ++ni)
        s[mi][ni][0] = s[mi][ni][1] = s[mi][ni][2] = s[mi][ni][3] = 0.f;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks) {
#pragma unroll
      for (int ni = 0; ni < NF; ni += 2) {
        const uint j = lane >> 3, r = lane & 7u;
        uint bfr[4];
        ldsm_x4<false>(s_k + flash_elem<D>(ni * 8 + (j >> 1) * 8 + r, ks * 16 + (j & 1u) * 8), bfr);
#pragma unroll
        for (int mi = 0; mi < MF; ++mi) {
          mma_op<KIND>(s[mi][ni], qf[mi][ks], bfr);
          mma_op<KIND>(s[mi][ni + 1], qf[mi][ks], bfr + 2);
        }
      }
    }

    // Masks: keys past seq_k, and (causal) keys after the row's diagonal.
    const bool edge = n0 + BN > seq_k || (CAUSAL && int(n0 + BN - 1) > int(m0 + wm) + shift);
    if (edge) {
#pragma unroll
      for (int mi = 0; mi < MF; ++mi)
#pragma unroll
        for (int ni = 0; ni < NF; ++ni)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int col = int(n0 + ni * 8 + t * 2 + (e & 1));
            const int row = int(m0 + wm + mi * 16 + g + (e >> 1) * 8);
            if (col >= int(seq_k) || (CAUSAL && col > row + shift)) s[mi][ni][e] = flash_neg_inf();
          }
    }

    // Online softmax: new row maxima, rescale what was accumulated, P = exp2(S - max).
#pragma unroll
    for (int mi = 0; mi < MF; ++mi) {
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        float mx = row_max[mi][hr];
#pragma unroll
        for (int ni = 0; ni < NF; ++ni)
          mx = fmaxf(mx, fmaxf(s[mi][ni][hr * 2], s[mi][ni][hr * 2 + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        // A row that has seen no key yet keeps max -inf: shift by 0 so exp2 gives 0, not NaN.
        const float base = mx == flash_neg_inf() ? 0.f : mx * scale_log2;
        const float alpha = flash_exp2(row_max[mi][hr] * scale_log2 - base);
        row_max[mi][hr] = mx;
        float sum = 0.f;
#pragma unroll
        for (int ni = 0; ni < NF; ++ni) {
          float p0 = flash_exp2(s[mi][ni][hr * 2] * scale_log2 - base);
          float p1 = flash_exp2(s[mi][ni][hr * 2 + 1] * scale_log2 - base);
          s[mi][ni][hr * 2] = p0;
          s[mi][ni][hr * 2 + 1] = p1;
          sum += p0 + p1;
        }
        row_sum[mi][hr] = row_sum[mi][hr] * alpha + sum;
#pragma unroll
        for (int di = 0; di < DF; ++di) {
          acc[mi][di][hr * 2] *= alpha;
          acc[mi][di][hr * 2 + 1] *= alpha;
        }
      }
    }

    // O += P V: P's accumulator pairs are the A fragments; V is read transposed.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      uint pa[MF][4];
#pragma unroll
      for (int mi = 0; mi < MF; ++mi) {
        pa[mi][0] = flash_pack(s[mi][2 * kk][0], s[mi][2 * kk][1], KIND);
        pa[mi][1] = flash_pack(s[mi][2 * kk][2], s[mi][2 * kk][3], KIND);
        pa[mi][2] = flash_pack(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1], KIND);
        pa[mi][3] = flash_pack(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3], KIND);
      }
#pragma unroll
      for (int di = 0; di < DF; di += 2) {
        const uint j = lane >> 3, r = lane & 7u;
        uint bfr[4];
        ldsm_x4<true>(s_v + flash_elem<D>(kk * 16 + (j & 1u) * 8 + r, di * 8 + (j >> 1) * 8), bfr);
#pragma unroll
        for (int mi = 0; mi < MF; ++mi) {
          mma_op<KIND>(acc[mi][di], pa[mi], bfr);
          mma_op<KIND>(acc[mi][di + 1], pa[mi], bfr + 2);
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before it is refilled
  }
  cp_async_wait<0>();

  // O = acc / sum (zeros for a row that saw no key), in the operands' type.
#pragma unroll
  for (int mi = 0; mi < MF; ++mi) {
#pragma unroll
    for (int hr = 0; hr < 2; ++hr) {
      float sum = row_sum[mi][hr];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      const uint row = m0 + wm + mi * 16 + g + hr * 8;
      if (row >= seq_q) continue;
      if (a.o != nullptr) {  // null: only the log-sum-exp (the backward's statistics)
        unsigned char* orow = ob + uint64_t(row) * a.o_ss * 2;
#pragma unroll
        for (int di = 0; di < DF; ++di) {
          const uint packed =
              flash_pack(acc[mi][di][hr * 2] * inv, acc[mi][di][hr * 2 + 1] * inv, KIND);
          *reinterpret_cast<uint*>(orow + (di * 8 + t * 2) * 2) = packed;
        }
      }
      if (a.lse != nullptr && t == 0) {
        const float mx = row_max[mi][hr];
        a.lse[uint64_t(bh) * seq_q + row] =
            sum > 0.f ? mx * scale_log2 * 0.69314718055994531f + logf(sum) : flash_neg_inf();
      }
    }
  }
}
