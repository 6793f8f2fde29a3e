#pragma once
// The global RNG state: a seed and a running offset. Each Random primitive takes a disjoint
// range of Philox counters, so results depend only on the seed and the order of random ops.
#include <cstdint>
#include <utility>

namespace ember {
// Sets the global seed and restarts the counter sequence.
void seed(uint64_t seed);
namespace detail {
// Returns (seed, first counter) and reserves `count` counters.
std::pair<uint64_t, uint64_t> take_random_offset(int64_t count);
}  // namespace detail
}  // namespace ember
