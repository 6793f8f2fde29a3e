// Times a softmax kernel of Ember's CPU target (a shared object exporting
// ember_k0_row_binary_mul over [1024, 4096] floats) on two threads, best of 200 calls, after
// checking that its outputs equal a reference kernel's bit for bit.
//   harness KERNEL.so REFERENCE.so
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

using Kernel = void (*)(const unsigned*, void* const*, unsigned, unsigned);

Kernel load(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    std::exit(1);
  }
  return reinterpret_cast<Kernel>(dlsym(lib, "ember_k0_row_binary_mul"));
}

void run(Kernel k, const unsigned* params, void* const* buffers) {
  std::thread other([&] { k(params, buffers, 1, 2); });
  k(params, buffers, 0, 2);
  other.join();
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: harness KERNEL.so REFERENCE.so\n");
    return 2;
  }
  Kernel kernel = load(argv[1]), reference = load(argv[2]);
  std::vector<float> x(4096 * 1024), y(x.size()), want(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i * 2654435761u % 1000) / 100 - 5;
  unsigned params[4] = {0, 0, 0, 0};
  const float one = 1.0f;
  std::memcpy(&params[3], &one, 4);  // the softmax's numerator scale
  void* got_buffers[2] = {x.data(), y.data()};
  void* want_buffers[2] = {x.data(), want.data()};
  run(kernel, params, got_buffers);
  run(reference, params, want_buffers);
  size_t differ = 0;
  for (size_t i = 0; i < y.size(); ++i) differ += std::memcmp(&y[i], &want[i], 4) != 0;
  double best = 1e9;
  for (int rep = 0; rep < 200; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    run(kernel, params, got_buffers);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("%s: best %.3f ms on two threads; %zu outputs differ from the reference\n", argv[1],
              best * 1e3, differ);
  return differ == 0 ? 0 : 1;
}
