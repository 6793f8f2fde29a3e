#include "nn/param_id.h"

#include <atomic>
#include <cstdio>
#include <random>

namespace ember::nn {

namespace {
// A counter unique within the process, started at a random point so that ids made by different
// processes (a record saved by one run, loaded by another next to fresh parameters) are unlikely
// to meet.
uint64_t next_id() {
  static std::atomic<uint64_t> counter{[] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }()};
  return counter.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

ParamId::ParamId() : value_(next_id()) {}

std::string ParamId::to_string() const {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(value_));
  return buf;
}

}  // namespace ember::nn
