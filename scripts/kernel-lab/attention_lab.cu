// Attention lab: checks and times kernels/attention/flash_fwd.cuh outside Ember's runtime (the
// kernel as NVRTC would see it, compiled here by nvcc), on [batch, heads, seq, D] bf16 or f16
// operands filled with seeded uniform values. Sampled rows are compared against a
// double-precision host softmax(Q K^T * scale) V (and their log-sum-exp); then the kernel runs
// back to back for about 0.3 s and reports ms and TFLOP/s. Not part of the build:
//   nvcc -O3 -std=c++17 -arch=sm_90a scripts/kernel-lab/attention_lab.cu -o lab-run/attention_lab
// Usage: attention_lab KIND(bf16|f16) D B H KV_HEADS SEQ_Q SEQ_K CAUSAL(0|1)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

typedef unsigned int uint;
// mma_sync.cuh first: flash_fwd.cuh uses its helpers.
#include "../../kernels/matmul/mma_sync.cuh"
// clang-format off
#include "../../kernels/attention/flash_fwd.cuh"
// clang-format on

template <int KIND, int D, bool CAUSAL>
__global__ void __launch_bounds__(128) flash_fwd_kernel(FlashArgs a, uint tiles) {
  for (uint t = blockIdx.x; t < tiles; t += gridDim.x) flash_fwd_block<KIND, D, CAUSAL>(a, t);
}

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

static float half_to_f(uint16_t h, int kind) {
  if (kind == 1) {
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  return __half2float(__ushort_as_half(h));
}
static uint16_t f_to_half(float f, int kind) {
  if (kind == 1) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  return __half_as_ushort(__float2half(f));
}

template <int KIND, int D, bool CAUSAL>
int run(int B, int H, int HK, int SQ, int SK) {
  using T = FlashFwd<KIND, D>;
  const size_t nq = size_t(B) * H * SQ * D, nk = size_t(B) * HK * SK * D;
  std::vector<uint16_t> hq(nq), hk(nk), hv(nk), ho(nq);
  std::vector<float> hlse(size_t(B) * H * SQ);
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (auto& x : hq) x = f_to_half(u(rng), KIND);
  for (auto& x : hk) x = f_to_half(u(rng), KIND);
  for (auto& x : hv) x = f_to_half(u(rng) * 0.5f, KIND);
  unsigned char *dq, *dk, *dv, *dout;
  float* dlse;
  CK(cudaMalloc(&dq, nq * 2));
  CK(cudaMalloc(&dk, nk * 2));
  CK(cudaMalloc(&dv, nk * 2));
  CK(cudaMalloc(&dout, nq * 2));
  CK(cudaMalloc(&dlse, hlse.size() * 4));
  CK(cudaMemcpy(dq, hq.data(), nq * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dk, hk.data(), nk * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, hv.data(), nk * 2, cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0xff, nq * 2));
  auto kern = flash_fwd_kernel<KIND, D, CAUSAL>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes));
  const double scale = 1.0 / std::sqrt(double(D));
  const float scale_log2 = float(scale * 1.4426950408889634);
  const uint tiles = uint((SQ + T::kBlockM - 1) / T::kBlockM) * B * H;
  FlashArgs fa{dq, dk, dv, dout, dlse};
  const uint qsh = SQ * D, ksh = SK * D;
  fa.q_sb = H * qsh, fa.q_sh = qsh, fa.q_ss = D;
  fa.k_sb = HK * ksh, fa.k_sh = ksh, fa.k_ss = D;
  fa.v_sb = HK * ksh, fa.v_sh = ksh, fa.v_ss = D;
  fa.o_sb = H * qsh, fa.o_sh = qsh, fa.o_ss = D;
  fa.batch = B, fa.heads = H, fa.kv_heads = HK, fa.seq_q = SQ, fa.seq_k = SK;
  fa.scale_log2 = scale_log2;
  // At most a few waves of workgroups: the rest loop (as Ember's row loops do).
  const uint grid = std::min<uint>(tiles, 132u * 16u);
  auto launch = [&] { kern<<<grid, T::kThreads, T::kSharedBytes>>>(fa, tiles); };
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ho.data(), dout, nq * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hlse.data(), dlse, hlse.size() * 4, cudaMemcpyDeviceToHost));
  // Check sampled rows (always the first and last rows of the first and last heads too).
  double worst = 0, worst_lse = 0;
  std::vector<double> p(SK);
  for (int sample = 0; sample < 96; ++sample) {
    int b = sample % 3 == 0 ? 0 : int(rng() % B), h = sample % 5 == 0 ? H - 1 : int(rng() % H);
    int i = sample < 4 ? (sample % 2 ? SQ - 1 : 0) : int(rng() % SQ);
    int kvh = h / (H / HK);
    const uint16_t* qr = &hq[((size_t(b) * H + h) * SQ + i) * D];
    double mx = -INFINITY;
    for (int j = 0; j < SK; ++j) {
      if (CAUSAL && j > i + SK - SQ) {
        p[j] = -INFINITY;
        continue;
      }
      const uint16_t* kr = &hk[((size_t(b) * HK + kvh) * SK + j) * D];
      double s = 0;
      for (int d = 0; d < D; ++d) s += double(half_to_f(qr[d], KIND)) * half_to_f(kr[d], KIND);
      p[j] = s * scale;
      mx = std::max(mx, p[j]);
    }
    double sum = 0;
    for (int j = 0; j < SK; ++j) sum += p[j] == -INFINITY ? 0 : std::exp(p[j] - mx);
    double ref_lse = sum > 0 ? mx + std::log(sum) : -INFINITY;
    float got_lse = hlse[(size_t(b) * H + h) * SQ + i];
    if (std::isfinite(ref_lse))
      worst_lse = std::max(worst_lse, std::fabs(got_lse - ref_lse));
    else if (got_lse != -INFINITY)
      worst_lse = INFINITY;
    for (int d = 0; d < D; ++d) {
      double o = 0;
      for (int j = 0; j < SK; ++j) {
        if (p[j] == -INFINITY) continue;
        o += std::exp(p[j] - mx) / sum *
             half_to_f(hv[((size_t(b) * HK + kvh) * SK + j) * D + d], KIND);
      }
      double got = half_to_f(ho[((size_t(b) * H + h) * SQ + i) * D + d], KIND);
      worst = std::max(worst, std::fabs(got - o));
    }
  }
  const bool ok = worst < 2e-2 && worst_lse < 1e-3;
  // Time.
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaEventRecord(e0));
  launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float one = 0;
  CK(cudaEventElapsedTime(&one, e0, e1));
  int reps = std::max(5, int(300.0 / std::max(one, 0.001f)));
  CK(cudaEventRecord(e0));
  for (int i = 0; i < reps; ++i) launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  ms /= reps;
  double flops = 4.0 * B * H * double(SQ) * SK * D * (CAUSAL ? 0.5 : 1.0);
  std::printf(
      "%s D=%d B=%d H=%d KVH=%d SQ=%d SK=%d causal=%d: %.4f ms, %.1f TFLOP/s; max |err| %.2e, "
      "lse %.2e: %s\n",
      KIND ? "bf16" : "f16", D, B, H, HK, SQ, SK, int(CAUSAL), ms, flops / ms / 1e9, worst,
      worst_lse, ok ? "OK" : "WRONG");
  cudaFree(dq);
  cudaFree(dk);
  cudaFree(dv);
  cudaFree(dout);
  cudaFree(dlse);
  return ok ? 0 : 1;
}

template <int KIND>
int dispatch(int d, int B, int H, int HK, int SQ, int SK, int causal) {
  if (d == 64)
    return causal ? run<KIND, 64, true>(B, H, HK, SQ, SK) : run<KIND, 64, false>(B, H, HK, SQ, SK);
  if (d == 128)
    return causal ? run<KIND, 128, true>(B, H, HK, SQ, SK)
                  : run<KIND, 128, false>(B, H, HK, SQ, SK);
  std::fprintf(stderr, "D must be 64 or 128\n");
  return 2;
}

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: attention_lab bf16|f16 D B H KV_HEADS SEQ_Q SEQ_K CAUSAL\n");
    return 2;
  }
  int kind = std::strcmp(argv[1], "f16") == 0 ? 0 : 1;
  int a[7];
  for (int i = 0; i < 7; ++i) a[i] = std::atoi(argv[i + 2]);
  return kind ? dispatch<1>(a[0], a[1], a[2], a[3], a[4], a[5], a[6])
              : dispatch<0>(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
}
