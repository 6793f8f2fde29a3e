#include "frontend/random_state.h"

#include <mutex>
#include <random>

namespace ember {
namespace {

struct RandomState {
  std::mutex mutex;
  bool seeded = false;
  uint64_t seed = 0;
  uint64_t offset = 0;
};

RandomState& state() {
  static RandomState s;
  return s;
}

}  // namespace

void seed(uint64_t value) {
  std::lock_guard lock(state().mutex);
  state().seeded = true;
  state().seed = value;
  state().offset = 0;
}

namespace detail {

std::pair<uint64_t, uint64_t> take_random_offset(int64_t count) {
  RandomState& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.seeded) {  // unseeded runs differ from each other, as with an OS-seeded generator
    s.seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    s.seeded = true;
  }
  uint64_t first = s.offset;
  s.offset += static_cast<uint64_t>(count);
  return {s.seed, first};
}

}  // namespace detail
}  // namespace ember
