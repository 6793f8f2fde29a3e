// The multiply-and-shift division the code generator emits for index arithmetic by sizes and
// strides (jit/codegen/emitter.cc divide_by_fixed): the formula with fixed_divisor's words,
// evaluated here as the kernels evaluate it, against the hardware's division.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "jit/codegen/kernel.h"

namespace ember::jit {
namespace {

uint32_t divided(uint32_t n, uint32_t d) {
  const FixedDivisor f = fixed_divisor(d);
  const auto t = static_cast<uint32_t>((uint64_t{n} * f.magic) >> 32);
  return (t + ((n - t) >> f.shift1)) >> f.shift2;
}

TEST(FixedDivisor, EqualsDivisionForEveryNumeratorClass) {
  std::mt19937 gen(7);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 4100; ++d) divisors.push_back(d);
  for (uint32_t p = 12; p < 32; ++p) {  // powers of two, their neighbours, large odd sizes
    for (int64_t delta : {-1, 0, 1}) divisors.push_back(static_cast<uint32_t>((1ull << p) + delta));
  }
  for (uint32_t d : {50304u, 786432u, 8388608u * 3u, 0xFFFFFFFFu, 0xFFFFFFFEu, 0x80000001u})
    divisors.push_back(d);
  for (uint32_t d : divisors) {
    // The numerators where rounding goes wrong first: around multiples of d and at the top.
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 0xFFFFFFFFu, 0xFFFFFFFEu, 0x80000000u};
    for (uint64_t k : {2ull, 3ull, 1000ull, 0xFFFFFFFFull / d}) {
      uint64_t m = k * d;
      for (int64_t delta : {-1, 0, 1}) {
        uint64_t n = m + delta;
        if (n <= 0xFFFFFFFFull) ns.push_back(static_cast<uint32_t>(n));
      }
    }
    for (int i = 0; i < 64; ++i) ns.push_back(static_cast<uint32_t>(gen()));
    for (uint32_t n : ns) {
      ASSERT_EQ(divided(n, d), n / d) << n << " / " << d;
    }
  }
}

}  // namespace
}  // namespace ember::jit
