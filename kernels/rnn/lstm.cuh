// The LSTM recurrence (ir::OpKind::Lstm) as one persistent kernel per layer and direction:
// each workgroup owns J hidden units of a block of batch rows for the whole sequence. It keeps its
// slice of the recurrent weight in shared memory, carries its units' cell state (or cell gradient)
// in registers, and meets the other workgroups at a grid barrier after each step, once every hidden
// state (forward) or gate gradient (backward) of that step is in memory. The family launches one
// workgroup per owned slice, at most one per SM, so all are resident at once; a grid of another
// size traps rather than wait forever. Workgroups own blocks of batch rows too, so that each reads
// only its rows of the step's operand: f32; 256 threads; H a multiple of 4; J in {4, 8, 16}; a
// block of bb4 rows with bb4 * J <= 1024 (four (row, unit) pairs per thread) and bb4 * Q <= 4096.

struct LstmOperand {  // element (i, j, k) at p[i s0 + j s1 + k s2]
  const float* p;
  uint s0, s1, s2;
  __device__ __forceinline__ float at(uint i, uint j, uint k) const {
    return p[(size_t)i * s0 + (size_t)j * s1 + (size_t)k * s2];
  }
  // Past L1: the value was written during this launch by another workgroup.
  __device__ __forceinline__ float fresh(uint i, uint j, uint k) const {
    return __ldcg(p + (size_t)i * s0 + (size_t)j * s1 + (size_t)k * s2);
  }
};

struct LstmArgs {
  // Forward: xp [B, T, 4H], w [H, 4H] (k, -, q), h0 and c0 [B, H] (b, -, j).
  // Gradient: p [B, T, 6H], w, c0, dp [B, T, 6H].
  LstmOperand in[4];
  float* out;  // forward [B, T, 6H]; gradient [B, T + 1, 4H]
  uint o0, o1, o2;
  unsigned* sync;  // [count, exits], zero on entry and on exit
  uint batch, steps, hidden, workgroups, bb4;
  bool reverse;
  __device__ __forceinline__ float& out_at(uint i, uint j, uint k) const {
    return out[(size_t)i * o0 + (size_t)j * o1 + (size_t)k * o2];
  }
  __device__ __forceinline__ uint time(uint s) const { return reverse ? steps - 1 - s : s; }
};

__device__ __forceinline__ unsigned lstm_load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Every workgroup's writes before the call are visible to every workgroup after it. `target`
// counts arrivals so far (the same in every workgroup). The arrival is a release (it orders the
// workgroup's writes, which bar.sync made visible to thread 0, before it), the polling an
// acquire.
__device__ __forceinline__ void lstm_grid_barrier(unsigned* count, uint workgroups,
                                                  unsigned& target) {
  __syncthreads();
  target += workgroups;
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;\n" ::"l"(count) : "memory");
    unsigned long long spins = 0;
    while (lstm_load_acquire(count) < target) {
      if (++spins > 64) __nanosleep(20);
      if (spins > (1ull << 27)) __trap();  // seconds: a workgroup never arrived
    }
  }
  __syncthreads();
}

// The last workgroup out puts the barrier words back to zero for the next launch.
__device__ __forceinline__ void lstm_grid_exit(unsigned* sync, uint workgroups) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(sync + 1, 1u) == workgroups - 1) {
      atomicExch(sync, 0u);
      atomicExch(sync + 1, 0u);
    }
  }
}

// The staged operand passes in chunks of KC columns (64 forward, 128 backward), kLstmStages in
// flight, each row KC + 4 floats apart (16-byte aligned rows).
constexpr uint kLstmStages = 4;
constexpr uint kLstmForwardChunk = 64, kLstmGradientChunk = 128;

__device__ __forceinline__ void lstm_copy16(float* dst, const float* src, bool valid) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
               "r"(valid ? 16 : 0)
               : "memory");
}

// Stages chunk `c` of rows [0, rows) of a (row stride sb, column stride sk) into `dst`
// ([bb4][KC + 4]): 16-byte copies past L1 where the rows allow, else plain loads; rows past
// `rows` and columns past K are zeros.
template <uint KC>
__device__ __forceinline__ void lstm_stage(float* dst, const float* a, uint sb, uint sk, uint rows,
                                           uint bb4, uint K, uint c, bool aligned) {
  const uint k0 = c * KC, pieces = bb4 * (KC / 4);
  for (uint i = threadIdx.x; i < pieces; i += 256u) {
    const uint b = i / (KC / 4), k = k0 + (i % (KC / 4)) * 4;
    float* d = dst + b * (KC + 4) + (k - k0);
    const bool valid = b < rows && k < K;
    if (aligned) {
      lstm_copy16(d, valid ? a + (size_t)b * sb + k : a, valid);
    } else {
      float v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        v[e] = valid && k + e < K ? __ldcg(a + (size_t)b * sb + (size_t)(k + e) * sk) : 0.f;
      }
      *reinterpret_cast<float4*>(d) = make_float4(v[0], v[1], v[2], v[3]);
    }
  }
}

// red[b Q + q] = sum over k < K of a(b, k) ws[k Q + q] for b < bb4 (rows past `rows` give
// zeros), q < Q; a(b, k) at a + b sb + k sk, written during this launch by other workgroups, so
// read past L1. The rows pass through shared memory `stages` (kLstmStages chunks in flight).
// Each thread sums a 4 x 4 block of the output over every G-th group of four columns; `red`
// then holds the groups' total; the partial sums take at most 4096 floats (bb4 Q <= 4096).
template <int Q, uint KC>
__device__ __forceinline__ void lstm_rows_times_slice(const float* a, uint sb, uint sk, uint rows,
                                                      uint bb4, uint K, const float* ws,
                                                      float* stages, float* red) {
  constexpr uint kPitch = KC + 4;
  const bool aligned = sk == 1 && sb % 4 == 0 && (reinterpret_cast<size_t>(a) & 15) == 0;
  const uint chunks = (K + KC - 1) / KC, stage_floats = bb4 * kPitch;
  const uint per_group = (bb4 / 4) * (Q / 4), groups = 256u / per_group;
  const uint g = threadIdx.x / per_group, r = threadIdx.x % per_group;
  const uint rq = r / (Q / 4), cq = r % (Q / 4);
  float acc[4][4] = {};
#pragma unroll
  for (uint s = 0; s + 1 < kLstmStages; ++s) {
    if (s < chunks) lstm_stage<KC>(stages + s * stage_floats, a, sb, sk, rows, bb4, K, s, aligned);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  for (uint c = 0; c < chunks; ++c) {
    const uint next = c + kLstmStages - 1;
    if (next < chunks) {
      lstm_stage<KC>(stages + (next % kLstmStages) * stage_floats, a, sb, sk, rows, bb4, K, next,
                     aligned);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kLstmStages - 1) : "memory");
    __syncthreads();
    if (g < groups) {
      const float* as = stages + (c % kLstmStages) * stage_floats + rq * 4 * kPitch;
      const uint k0 = c * KC, quads = (min(KC, K - k0) + 3) / 4;
      for (uint kq = g; kq < quads; kq += groups) {
        float4 x[4], w[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          x[i] = *reinterpret_cast<const float4*>(as + i * kPitch + kq * 4);
          w[i] = *reinterpret_cast<const float4*>(ws + (size_t)(k0 + kq * 4 + i) * Q + cq * 4);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float xs[4] = {x[i].x, x[i].y, x[i].z, x[i].w};
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            acc[i][0] += xs[k] * w[k].x;
            acc[i][1] += xs[k] * w[k].y;
            acc[i][2] += xs[k] * w[k].z;
            acc[i][3] += xs[k] * w[k].w;
          }
        }
      }
    }
    __syncthreads();
  }
  if (g < groups) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      *reinterpret_cast<float4*>(red + g * bb4 * Q + (rq * 4 + i) * Q + cq * 4) =
          make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    }
  }
  __syncthreads();
  for (uint i = threadIdx.x; i < bb4 * Q; i += 256u) {
    float s = red[i];
    for (uint gg = 1; gg < groups; ++gg) s += red[gg * bb4 * Q + i];
    red[i] = s;
  }
  __syncthreads();
}

__device__ __forceinline__ float lstm_logistic(float x) { return 1.f / (1.f + __expf(-x)); }

// The workgroup's block: batch rows [b0, b0 + rows) (a block of bb4, a multiple of four) and
// hidden units [j0, j0 + J).
struct LstmBlock {
  uint b0, rows, j0;
  template <int J>
  __device__ __forceinline__ static LstmBlock of(const LstmArgs& A, uint cta) {
    const uint unit_blocks = (A.hidden + J - 1) / J, b0 = cta / unit_blocks * A.bb4;
    return {b0, min(A.bb4, A.batch - b0), cta % unit_blocks * J};
  }
};

// Shared memory: the weight slice (K x Q floats), kLstmStages staged chunks of bb4 rows, the
// groups' partial sums.
template <int Q, uint KC>
__device__ __forceinline__ void lstm_carve(uint K, uint bb4, float*& ws, float*& stages,
                                           float*& red) {
  extern __shared__ __align__(128) unsigned char lstm_smem[];
  ws = reinterpret_cast<float*>(lstm_smem);
  stages = ws + (size_t)K * Q;
  red = stages + kLstmStages * bb4 * (KC + 4);
}

// Forward: step s computes a = xp[t] + h_prev w for the block (the slice holds the units' four
// gates side by side: column jj * 4 + gate), then the packed states of step t. The input's part
// of the next step's gates is loaded before the barrier: no other workgroup writes it.
template <int J>
__device__ void lstm_forward_block(const LstmArgs& A, uint cta) {
  constexpr int Q = 4 * J, PAIRS = 4;
  constexpr uint KC = kLstmForwardChunk;
  if (gridDim.x != A.workgroups) __trap();
  const uint H = A.hidden, tid = threadIdx.x;
  const LstmBlock blk = LstmBlock::of<J>(A, cta);
  float *ws, *stages, *red;
  lstm_carve<Q, KC>(H, A.bb4, ws, stages, red);
  const LstmOperand &xp = A.in[0], &w = A.in[1], &h0 = A.in[2], &c0 = A.in[3];
  for (uint i = tid; i < H * Q; i += 256u) {
    const uint k = i / Q, q = i % Q, j = blk.j0 + q / 4;
    ws[i] = j < H ? w.at(k, 0, (q % 4) * H + j) : 0.f;
  }
  float cell[PAIRS], x[PAIRS][4];
  auto valid = [&](int r) {
    const uint pair = tid + r * 256u;
    return pair / J < blk.rows && blk.j0 + pair % J < H;
  };
  auto load_x = [&](uint t) {
#pragma unroll
    for (int r = 0; r < PAIRS; ++r) {
      const uint pair = tid + r * 256u, b = blk.b0 + pair / J, j = blk.j0 + pair % J;
#pragma unroll
      for (int gate = 0; gate < 4; ++gate) x[r][gate] = valid(r) ? xp.at(b, t, gate * H + j) : 0.f;
    }
  };
#pragma unroll
  for (int r = 0; r < PAIRS; ++r) {
    const uint pair = tid + r * 256u;
    cell[r] = valid(r) ? c0.at(blk.b0 + pair / J, 0, blk.j0 + pair % J) : 0.f;
  }
  load_x(A.time(0));
  __syncthreads();
  unsigned target = 0;
  for (uint s = 0; s < A.steps; ++s) {
    const uint t = A.time(s);
    if (s == 0) {
      lstm_rows_times_slice<Q, KC>(h0.p + (size_t)blk.b0 * h0.s0, h0.s0, h0.s2, blk.rows, A.bb4, H,
                                   ws, stages, red);
    } else {  // h of the previous step, columns [5H, 6H) of the output
      const float* h =
          A.out + (size_t)blk.b0 * A.o0 + (size_t)A.time(s - 1) * A.o1 + (size_t)5 * H * A.o2;
      lstm_rows_times_slice<Q, KC>(h, A.o0, A.o2, blk.rows, A.bb4, H, ws, stages, red);
    }
#pragma unroll
    for (int r = 0; r < PAIRS; ++r) {
      if (!valid(r)) continue;
      const uint pair = tid + r * 256u, bl = pair / J, jj = pair % J, j = blk.j0 + jj;
      const float* acc = red + bl * Q + jj * 4;
      const float i = lstm_logistic(acc[0] + x[r][0]), f = lstm_logistic(acc[1] + x[r][1]);
      const float g = tanhf(acc[2] + x[r][2]), o = lstm_logistic(acc[3] + x[r][3]);
      cell[r] = f * cell[r] + i * g;
      const float packed[6] = {i, f, g, o, cell[r], o * tanhf(cell[r])};
#pragma unroll
      for (int k = 0; k < 6; ++k) A.out_at(blk.b0 + bl, t, k * H + j) = packed[k];
    }
    if (s + 1 < A.steps) {
      load_x(A.time(s + 1));
      lstm_grid_barrier(A.sync, A.workgroups, target);
    }
  }
  lstm_grid_exit(A.sync, A.workgroups);
}

// Gradient: step s (last first) takes dh_rec = (the gate gradients of the step run after it)
// w^T for the block, then writes step t's gate gradients; after step 0, dh0 and dc0 go to
// row T. The step's states and their gradients are loaded before the barrier (no other
// workgroup writes them).
template <int J>
__device__ void lstm_gradient_block(const LstmArgs& A, uint cta) {
  constexpr int PAIRS = 4;
  constexpr uint KC = kLstmGradientChunk;
  if (gridDim.x != A.workgroups) __trap();
  const uint H = A.hidden, tid = threadIdx.x;
  const LstmBlock blk = LstmBlock::of<J>(A, cta);
  float *ws, *stages, *red;
  lstm_carve<J, KC>(4 * H, A.bb4, ws, stages, red);  // ws [4H][J]: w^T's columns of the units
  const LstmOperand &p = A.in[0], &w = A.in[1], &c0 = A.in[2], &dp = A.in[3];
  for (uint i = tid; i < 4 * H * J; i += 256u) {
    const uint k = i / J, j = blk.j0 + i % J;
    ws[i] = j < H ? w.at(j, 0, k) : 0.f;
  }
  // Per pair: i, f, g, o, c, c_prev, then dp's six columns.
  float st[PAIRS][12], dc_next[PAIRS];
  auto valid = [&](int r) {
    const uint pair = tid + r * 256u;
    return pair / J < blk.rows && blk.j0 + pair % J < H;
  };
  auto load_step = [&](int s) {
    const uint t = A.time(s);
#pragma unroll
    for (int r = 0; r < PAIRS; ++r) {
      if (!valid(r)) continue;
      const uint pair = tid + r * 256u, b = blk.b0 + pair / J, j = blk.j0 + pair % J;
#pragma unroll
      for (int k = 0; k < 5; ++k) st[r][k] = p.at(b, t, k * H + j);
      st[r][5] = s > 0 ? p.at(b, A.time(s - 1), 4 * H + j) : c0.at(b, 0, j);
#pragma unroll
      for (int k = 0; k < 6; ++k) st[r][6 + k] = dp.at(b, t, k * H + j);
    }
  };
#pragma unroll
  for (int r = 0; r < PAIRS; ++r) dc_next[r] = 0.f;
  load_step(static_cast<int>(A.steps) - 1);
  __syncthreads();
  unsigned target = 0;
  for (int s = static_cast<int>(A.steps) - 1; s >= -1; --s) {
    // The gate gradients of the step run after this one (written by every workgroup).
    const bool first = s == static_cast<int>(A.steps) - 1;
    if (!first) {
      const float* next = A.out + (size_t)blk.b0 * A.o0 + (size_t)A.time(s + 1) * A.o1;
      lstm_rows_times_slice<J, KC>(next, A.o0, A.o2, blk.rows, A.bb4, 4 * H, ws, stages, red);
    }
#pragma unroll
    for (int r = 0; r < PAIRS; ++r) {
      if (!valid(r)) continue;
      const uint pair = tid + r * 256u, bl = pair / J, jj = pair % J, j = blk.j0 + jj;
      const uint b = blk.b0 + bl;
      const float dh_rec = first ? 0.f : red[bl * J + jj];
      if (s < 0) {  // row T: dh0, dc0, zeros
        A.out_at(b, A.steps, j) = dh_rec;
        A.out_at(b, A.steps, H + j) = dc_next[r];
        A.out_at(b, A.steps, 2 * H + j) = 0.f;
        A.out_at(b, A.steps, 3 * H + j) = 0.f;
        continue;
      }
      const uint t = A.time(s);
      const float i = st[r][0], f = st[r][1], g = st[r][2], o = st[r][3], c = st[r][4];
      const float c_prev = st[r][5], *d = st[r] + 6;
      const float tc = tanhf(c), dh = d[5] + dh_rec;
      const float dc = d[4] + dc_next[r] + dh * o * (1.f - tc * tc);
      A.out_at(b, t, j) = (dc * g + d[0]) * i * (1.f - i);
      A.out_at(b, t, H + j) = (dc * c_prev + d[1]) * f * (1.f - f);
      A.out_at(b, t, 2 * H + j) = (dc * i + d[2]) * (1.f - g * g);
      A.out_at(b, t, 3 * H + j) = (dh * tc + d[3]) * o * (1.f - o);
      dc_next[r] = dc * f;
    }
    if (s >= 0) {
      if (s > 0) load_step(s - 1);
      lstm_grid_barrier(A.sync, A.workgroups, target);
    }
  }
  lstm_grid_exit(A.sync, A.workgroups);
}
