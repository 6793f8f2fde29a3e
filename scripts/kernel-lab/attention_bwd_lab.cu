// Attention backward lab: checks and times kernels/attention/flash_bwd.cuh outside Ember's
// runtime. The forward (flash_fwd.cuh, checked by attention_lab.cu) gives O and the log-sum-exp;
// delta = rowsum(dO o O) comes from the host; dQ, dK and dV (per query head) are compared on
// every element against a double-precision host computation from the same bf16 inputs at small
// sizes (relative to each gradient's largest magnitude), then both kernels are timed at the
// size given. Not part of the build:
//   nvcc -O3 -std=c++17 -arch=sm_90a scripts/kernel-lab/attention_bwd_lab.cu -o
//   lab-run/attention_bwd_lab
// Usage: attention_bwd_lab D B H KV_HEADS SEQ_Q SEQ_K CAUSAL(0|1) CHECK(0|1)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

typedef unsigned int uint;
// mma_sync.cuh, then flash_fwd.cuh, then flash_bwd.cuh: each uses the ones before.
#include "../../kernels/matmul/mma_sync.cuh"
// clang-format off
#include "../../kernels/attention/flash_fwd.cuh"
#include "../../kernels/attention/flash_bwd.cuh"
// clang-format on

template <int D, bool CAUSAL>
__global__ void __launch_bounds__(128) fwd_kernel(FlashArgs a, uint tiles) {
  for (uint t = blockIdx.x; t < tiles; t += gridDim.x) flash_fwd_block<1, D, CAUSAL>(a, t);
}
template <int D, bool CAUSAL>
__global__ void __launch_bounds__(128) dq_kernel(FlashBwdArgs a, uint tiles) {
  for (uint t = blockIdx.x; t < tiles; t += gridDim.x) flash_bwd_dq_block<1, D, CAUSAL>(a, t);
}
template <int D, bool CAUSAL>
__global__ void __launch_bounds__(128) dkv_kernel(FlashBwdArgs a, uint tiles) {
  for (uint t = blockIdx.x; t < tiles; t += gridDim.x) flash_bwd_dkv_block<1, D, CAUSAL>(a, t);
}

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

static float bf(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static uint16_t tobf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d;
  CK(cudaMalloc(&d, h.size() * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template <int D, bool CAUSAL>
int run(int B, int H, int HK, int SQ, int SK, bool check) {
  const size_t nq = size_t(B) * H * SQ * D, nk = size_t(B) * HK * SK * D,
               nkh = size_t(B) * H * SK * D, rows = size_t(B) * H * SQ;
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<uint16_t> hq(nq), hk(nk), hv(nk), hdo(nq);
  for (auto& x : hq) x = tobf(u(rng));
  for (auto& x : hk) x = tobf(u(rng));
  for (auto& x : hv) x = tobf(u(rng) * 0.5f);
  for (auto& x : hdo) x = tobf(u(rng) * 0.5f);
  uint16_t *dq_in = upload(hq), *dk_in = upload(hk), *dv_in = upload(hv), *ddo = upload(hdo);
  uint16_t *d_o, *d_dq, *d_dk, *d_dv;
  float *d_lse, *d_delta;
  CK(cudaMalloc(&d_o, nq * 2));
  CK(cudaMalloc(&d_dq, nq * 2));
  CK(cudaMalloc(&d_dk, nkh * 2));
  CK(cudaMalloc(&d_dv, nkh * 2));
  CK(cudaMalloc(&d_lse, rows * 4));
  CK(cudaMalloc(&d_delta, rows * 4));
  const double scale = 1.0 / std::sqrt(double(D));
  FlashArgs fa{reinterpret_cast<unsigned char*>(dq_in), reinterpret_cast<unsigned char*>(dk_in),
               reinterpret_cast<unsigned char*>(dv_in), reinterpret_cast<unsigned char*>(d_o),
               d_lse};
  const uint qsh = SQ * D, ksh = SK * D;
  fa.q_sb = H * qsh, fa.q_sh = qsh, fa.q_ss = D;
  fa.k_sb = HK * ksh, fa.k_sh = ksh, fa.k_ss = D;
  fa.v_sb = HK * ksh, fa.v_sh = ksh, fa.v_ss = D;
  fa.o_sb = H * qsh, fa.o_sh = qsh, fa.o_ss = D;
  fa.batch = B, fa.heads = H, fa.kv_heads = HK, fa.seq_q = SQ, fa.seq_k = SK;
  fa.scale_log2 = float(scale * 1.4426950408889634);
  using F = FlashFwd<1, D>;
  CK(cudaFuncSetAttribute(fwd_kernel<D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          F::kSharedBytes));
  const uint ftiles = uint((SQ + F::kBlockM - 1) / F::kBlockM) * B * H;
  fwd_kernel<D, CAUSAL><<<std::min(ftiles, 2112u), 128, F::kSharedBytes>>>(fa, ftiles);
  CK(cudaGetLastError());
  std::vector<uint16_t> ho = download(d_o, nq);
  std::vector<float> hlse = download(d_lse, rows), hdelta(rows);
  for (size_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int d = 0; d < D; ++d) s += double(bf(hdo[r * D + d])) * bf(ho[r * D + d]);
    hdelta[r] = float(s);
  }
  CK(cudaMemcpy(d_delta, hdelta.data(), rows * 4, cudaMemcpyHostToDevice));
  FlashBwdArgs ba{reinterpret_cast<unsigned char*>(dq_in),
                  reinterpret_cast<unsigned char*>(dk_in),
                  reinterpret_cast<unsigned char*>(dv_in),
                  reinterpret_cast<unsigned char*>(ddo),
                  d_lse,
                  d_delta,
                  reinterpret_cast<unsigned char*>(d_dq),
                  reinterpret_cast<unsigned char*>(d_dk),
                  reinterpret_cast<unsigned char*>(d_dv)};
  ba.q_sb = ba.do_sb = ba.dq_sb = H * qsh, ba.q_sh = ba.do_sh = ba.dq_sh = qsh;
  ba.q_ss = ba.do_ss = ba.dq_ss = D;
  ba.k_sb = ba.v_sb = HK * ksh, ba.k_sh = ba.v_sh = ksh, ba.k_ss = ba.v_ss = D;
  ba.dk_sb = H * ksh, ba.dk_sh = ksh, ba.dk_ss = D;
  ba.batch = B, ba.heads = H, ba.kv_heads = HK, ba.seq_q = SQ, ba.seq_k = SK;
  ba.scale = float(scale), ba.scale_log2 = fa.scale_log2;
  using BW = FlashBwd<D>;
  CK(cudaFuncSetAttribute(dq_kernel<D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          BW::kSharedBytes));
  CK(cudaFuncSetAttribute(dkv_kernel<D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          BW::kSharedBytes));
  const uint qtiles = uint((SQ + 63) / 64) * B * H, ktiles = uint((SK + 63) / 64) * B * H;
  auto launch = [&] {
    dq_kernel<D, CAUSAL><<<std::min(qtiles, 2112u), 128, BW::kSharedBytes>>>(ba, qtiles);
    dkv_kernel<D, CAUSAL><<<std::min(ktiles, 2112u), 128, BW::kSharedBytes>>>(ba, ktiles);
  };
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  bool ok = true;
  double err[3] = {0, 0, 0};
  if (check) {
    std::vector<uint16_t> gq = download(d_dq, nq), gk = download(d_dk, nkh),
                          gv = download(d_dv, nkh);
    std::vector<double> rq(nq, 0), rk(nkh, 0), rv(nkh, 0), p(SK), ds(SK);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const int kh = h / (H / HK);
        for (int i = 0; i < SQ; ++i) {
          const size_t row = (size_t(b) * H + h) * SQ + i;
          const uint16_t* qr = &hq[row * D];
          double mx = -INFINITY;
          for (int j = 0; j < SK; ++j) {
            if (CAUSAL && j > i + SK - SQ) {
              p[j] = -INFINITY;
              continue;
            }
            const uint16_t* kr = &hk[((size_t(b) * HK + kh) * SK + j) * D];
            double s = 0;
            for (int d = 0; d < D; ++d) s += double(bf(qr[d])) * bf(kr[d]);
            p[j] = s * scale;
            mx = std::max(mx, p[j]);
          }
          double sum = 0;
          for (int j = 0; j < SK; ++j) sum += p[j] == -INFINITY ? 0 : std::exp(p[j] - mx);
          for (int j = 0; j < SK; ++j) {
            p[j] = p[j] == -INFINITY ? 0 : std::exp(p[j] - mx) / sum;
            const uint16_t* vr = &hv[((size_t(b) * HK + kh) * SK + j) * D];
            double dp = 0;
            for (int d = 0; d < D; ++d) dp += double(bf(hdo[row * D + d])) * bf(vr[d]);
            ds[j] = p[j] * (dp - hdelta[row]);
          }
          for (int j = 0; j < SK; ++j) {
            const uint16_t* kr = &hk[((size_t(b) * HK + kh) * SK + j) * D];
            const size_t krow = (size_t(b) * H + h) * SK + j;
            for (int d = 0; d < D; ++d) {
              rq[row * D + d] += scale * ds[j] * bf(kr[d]);
              rk[krow * D + d] += scale * ds[j] * bf(qr[d]);
              rv[krow * D + d] += p[j] * bf(hdo[row * D + d]);
            }
          }
        }
      }
    auto rel = [](const std::vector<uint16_t>& got, const std::vector<double>& want) {
      double mx = 1e-30, e = 0;
      for (double w : want) mx = std::max(mx, std::fabs(w));
      for (size_t i = 0; i < want.size(); ++i) e = std::max(e, std::fabs(bf(got[i]) - want[i]));
      return e / mx;
    };
    err[0] = rel(gq, rq), err[1] = rel(gk, rk), err[2] = rel(gv, rv);
    ok = err[0] < 2e-2 && err[1] < 2e-2 && err[2] < 2e-2;
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int i = 0; i < 3; ++i) launch();
  CK(cudaEventRecord(e0));
  const int reps = 20;
  for (int i = 0; i < reps; ++i) launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  ms /= reps;
  const double flops = 10.0 * B * H * double(SQ) * SK * D * (CAUSAL ? 0.5 : 1.0);
  std::printf(
      "bwd D=%d B=%d H=%d KVH=%d SQ=%d SK=%d causal=%d: %.4f ms (dq + dkv), %.1f TFLOP/s "
      "(FA2's 2.5x forward count)%s; rel err dq %.2e dk %.2e dv %.2e: %s\n",
      D, B, H, HK, SQ, SK, int(CAUSAL), ms, flops / ms / 1e9, check ? "" : " (unchecked)", err[0],
      err[1], err[2], ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: attention_bwd_lab D B H KV_HEADS SEQ_Q SEQ_K CAUSAL CHECK\n");
    return 2;
  }
  int a[8];
  for (int i = 0; i < 8; ++i) a[i] = std::atoi(argv[i + 1]);
  auto go = [&](auto d, auto c) {
    return run<decltype(d)::value, decltype(c)::value>(a[1], a[2], a[3], a[4], a[5], a[7] != 0);
  };
  using T = std::true_type;
  using Fa = std::false_type;
  if (a[0] == 64)
    return a[6] ? go(std::integral_constant<int, 64>{}, T{})
                : go(std::integral_constant<int, 64>{}, Fa{});
  if (a[0] == 128)
    return a[6] ? go(std::integral_constant<int, 128>{}, T{})
                : go(std::integral_constant<int, 128>{}, Fa{});
  return 2;
}
