// Memory-resident timing (4 rotating input/output pairs, 128 MiB) of softmax kernels over
// [1024, 4096] on two threads, with one thread's std::memcpy of the same bytes; the first kernel
// is the reference for the others' outputs (largest relative difference printed).
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
using Kernel = void (*)(const unsigned*, void* const*, unsigned, unsigned);
int main(int argc, char** argv) {
  const size_t n = 4096 * 1024;
  std::vector<float*> xs, ys;
  for (int i = 0; i < 4; ++i) {
    xs.push_back(static_cast<float*>(aligned_alloc(64, n * 4)));
    ys.push_back(static_cast<float*>(aligned_alloc(64, n * 4)));
    for (size_t j = 0; j < n; ++j)
      xs[i][j] = static_cast<float>((j + i) * 2654435761u % 1000) / 100 - 5, ys[i][j] = 0;
  }
  unsigned params[4] = {0, 0, 0, 0};
  const float one = 1.0f;
  std::memcpy(&params[3], &one, 4);
  std::vector<float> ref(n);
  int rounds = std::atoi(std::getenv("ROUNDS") ? std::getenv("ROUNDS") : "3");
  std::vector<std::vector<double>> med(argc);
  for (int round = 0; round < rounds; ++round)
    for (int a = 1; a < argc; ++a) {
      Kernel k = nullptr;
      if (std::strcmp(argv[a], "memcpy") != 0) {
        void* lib = dlopen(argv[a], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
          std::printf("%s\n", dlerror());
          return 1;
        }
        k = reinterpret_cast<Kernel>(dlsym(lib, "ember_k0_row_binary_mul"));
      }
      auto run = [&](int i) {
        static const bool benchlike = std::getenv("BENCHLIKE") != nullptr;
        void* b[2] = {benchlike ? xs[0] : xs[i], benchlike ? ys[i % 2] : ys[i]};
        if (k) {
          std::thread other([&] { k(params, b, 1, 2); });
          k(params, b, 0, 2);
          other.join();
        } else {
          std::memcpy(benchlike ? ys[i % 2] : ys[i], benchlike ? xs[0] : xs[i], n * 4);
        }
      };
      double worst = 0;
      if (k) {
        run(0);
        if (a == 1 || (a == 2 && std::strcmp(argv[1], "memcpy") == 0))
          std::memcpy(ref.data(), ys[0], n * 4);
        for (size_t j = 0; j < n; ++j)
          worst = std::max(worst,
                           std::fabs(double(ys[0][j]) - ref[j]) / std::max(1e-30, double(ref[j])));
      }
      std::vector<double> ts;
      for (int rep = 0; rep < 40; ++rep) {
        int i = rep % 4;
        auto t0 = std::chrono::steady_clock::now();
        run(i);
        ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() *
                     1e3);
      }
      std::sort(ts.begin(), ts.end());
      med[a].push_back(ts[ts.size() / 2]);
      const char* name = std::strrchr(argv[a], '/');
      std::printf("%-16s median %.3f ms  min %.3f  max rel diff %.2g\n", name ? name + 1 : argv[a],
                  ts[ts.size() / 2], ts[0], worst);
    }
  return 0;
}
