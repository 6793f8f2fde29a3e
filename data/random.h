#pragma once
// The data layer's own random numbers: a small generator whose sequence is fixed by this file
// (std::shuffle and the std distributions differ between standard libraries), so a seed gives
// the same order on every platform, and permutations and draws built on it.
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace ember::data {

// SplitMix64 (Steele, Lea, Flood 2014): passes BigCrush, one add and three mixes per draw.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  // Seeded from several values (a seed and an epoch): each is mixed in, so (s, 1) and (s + 1, 0)
  // give unrelated streams.
  SplitMix64(uint64_t seed, uint64_t stream) : state_(mix(mix(seed) ^ (stream + kGamma))) {}

  uint64_t next() { return mix(state_ += kGamma); }

  // Uniform in [0, bound) without modulo bias (Lemire 2019: multiply, reject the short range).
  uint64_t below(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// 0..n-1 in an order drawn by Fisher-Yates from `rng`.
inline std::vector<size_t> random_permutation(size_t n, SplitMix64& rng) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

}  // namespace ember::data
