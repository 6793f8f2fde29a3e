// Kernel lab: times one rendered Ember matmul kernel (a cubin compiled from `dump` output or a
// hand-edited variant of it) on the GPU through the driver API, and checks sampled outputs
// against a double-precision host reference. For exploring kernel variants before they go
// into the templates; not part of the build. See scripts/kernel-lab/README.md.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                   \
  do {                                                          \
    CUresult r = (x);                                           \
    if (r != CUDA_SUCCESS) {                                    \
      const char* s = nullptr;                                  \
      cuGetErrorString(r, &s);                                  \
      std::fprintf(stderr, "%s failed: %s\n", #x, s ? s : "?"); \
      std::exit(1);                                             \
    }                                                           \
  } while (0)

static float bf16_to_f(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static uint16_t f_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// usage: lab CUBIN KERNEL THREADS DYN_SMEM GRID M N K f32|bf16 PARAM...
int main(int argc, char** argv) {
  if (argc < 11) {
    std::fprintf(stderr, "usage: lab CUBIN KERNEL THREADS DYN_SMEM GRID M N K f32|bf16 PARAM...\n");
    return 2;
  }
  const char* cubin = argv[1];
  const char* name = argv[2];
  unsigned threads = std::atoi(argv[3]), smem = std::atoi(argv[4]), grid = std::atoi(argv[5]);
  size_t M = std::atol(argv[6]), N = std::atol(argv[7]), K = std::atol(argv[8]);
  bool bf16 = std::strcmp(argv[9], "bf16") == 0;
  std::vector<uint32_t> params;
  for (int i = 10; i < argc; ++i) params.push_back(std::strtoul(argv[i], nullptr, 10));
  params.resize(((params.size() + 7) / 8) * 8, 0);  // struct Params { uint p[N]; }

  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  std::ifstream in(cubin, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string image = ss.str();
  CUmodule mod;
  CK(cuModuleLoadData(&mod, image.data()));
  CUfunction fn;
  CK(cuModuleGetFunction(&fn, mod, name));
  if (smem > 0) CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));

  const size_t es = bf16 ? 2 : 4;
  std::vector<float> ha(M * K), hb(K * N);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : ha) v = u(rng);
  for (auto& v : hb) v = u(rng);
  // Device bytes of `h` (rounded to bf16 in place when the kernel reads bf16).
  auto to_device_bytes = [&](std::vector<float>& h) {
    std::vector<char> bytes(h.size() * es);
    for (size_t i = 0; i < h.size(); ++i) {
      if (bf16) {
        uint16_t v = f_to_bf16(h[i]);
        h[i] = bf16_to_f(v);
        std::memcpy(&bytes[i * 2], &v, 2);
      } else {
        std::memcpy(&bytes[i * 4], &h[i], 4);
      }
    }
    return bytes;
  };
  std::vector<char> ba = to_device_bytes(ha), bb = to_device_bytes(hb);
  CUdeviceptr da, db, dc;
  CK(cuMemAlloc(&da, ba.size()));
  CK(cuMemAlloc(&db, bb.size()));
  CK(cuMemAlloc(&dc, M * N * es));
  CK(cuMemcpyHtoD(da, ba.data(), ba.size()));
  CK(cuMemcpyHtoD(db, bb.data(), bb.size()));
  CK(cuMemsetD8(dc, 0, M * N * es));

  std::vector<void*> args{params.data(), &da, &db, &dc};
  auto launch = [&] {
    CK(cuLaunchKernel(fn, grid, 1, 1, threads, 1, 1, smem, nullptr, args.data(), nullptr));
  };
  launch();
  CK(cuCtxSynchronize());
  CUevent e0, e1;
  CK(cuEventCreate(&e0, 0));
  CK(cuEventCreate(&e1, 0));
  // Back-to-back launches for ~0.5 s, as the benchmarks and torch's figures run them.
  int reps = 5;
  for (int round = 0; round < 2; ++round) {
    CK(cuEventRecord(e0, nullptr));
    for (int i = 0; i < reps; ++i) launch();
    CK(cuEventRecord(e1, nullptr));
    CK(cuEventSynchronize(e1));
    float ms;
    CK(cuEventElapsedTime(&ms, e0, e1));
    if (round == 0)
      reps = std::max(5, int(500.0 / (ms / reps)));
    else
      std::printf("%s: %.3f ms, %.1f TFLOP/s (%d launches)\n", cubin, ms / reps,
                  2.0 * M * N * K / (ms / reps) / 1e9, reps);
  }
  std::vector<char> hc(M * N * es);
  CK(cuMemcpyDtoH(hc.data(), dc, hc.size()));
  double worst = 0;
  std::mt19937 pick(11);
  for (int s = 0; s < 256; ++s) {
    size_t i = pick() % M, j = pick() % N;
    if (s < 4) i = s * (M - 1) / 3, j = (3 - s) * (N - 1) / 3;
    double ref = 0, mag = 0;
    for (size_t k = 0; k < K; ++k) {
      ref += double(ha[i * K + k]) * hb[k * N + j];
      mag += std::fabs(double(ha[i * K + k]) * hb[k * N + j]);
    }
    float got;
    if (bf16) {
      uint16_t h;
      std::memcpy(&h, &hc[(i * N + j) * 2], 2);
      got = bf16_to_f(h);
    } else {
      std::memcpy(&got, &hc[(i * N + j) * 4], 4);
    }
    worst = std::max(worst, std::fabs(got - ref) / (mag + 1e-30));
  }
  const double tol = bf16 ? 1e-2 : 1e-5;
  std::printf("  check: worst relative error %.2e (%s)\n", worst, worst < tol ? "ok" : "WRONG");
  return worst < tol ? 0 : 1;
}
