#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): the definition of
// the Random primitive's bits. Element i of a Random node with (seed, offset) draws from counter
// offset + i, so any backend, and any recomputation during backward, reproduces it bit-exactly.
#include <array>
#include <cmath>
#include <cstdint>

namespace ember::ir {

inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
    uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return c;
}

// The stream Ember uses: a 64-bit counter in the low words, the 64-bit seed as the key.
inline std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t seed) {
  return philox4x32_10(
      {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u},
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

// Uniform in [0, 1) with 24 random bits (exact in f32).
inline float philox_uniform(uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1p-24f; }

// One sample of a Random node: uniform in [a, b), normal(mean a, std b), or bernoulli(p = a).
// Computed in f32 as the generated kernels compute it (jit/codegen/math_standins.cc), so the
// CPU target's compiled kernels draw the same bits as this reference for the same seed.
inline double philox_sample(int dist, double a, double b, uint64_t counter, uint64_t seed) {
  auto w = philox4x32(counter, seed);
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  switch (dist) {
    case 0:
      return fa + (fb - fa) * philox_uniform(w[0]);
    case 1: {
      // Box-Muller; u1 in (0, 1] keeps the log finite.
      float u1 = (static_cast<float>(w[0] >> 8) + 1.0f) * 0x1p-24f;
      float u2 = philox_uniform(w[1]);
      return fa + fb * std::sqrt(-2.0f * std::log(u1)) * std::cos(6.283185307179586f * u2);
    }
    default:
      return philox_uniform(w[0]) < fa ? 1.0 : 0.0;
  }
}

}  // namespace ember::ir
