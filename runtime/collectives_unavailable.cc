// Built instead of the NCCL collectives when CUDA's or NCCL's headers were absent at build time:
// collectives are then reported unavailable, with the reason.
#include "ir/error.h"
#include "runtime/collectives.h"

namespace ember::runtime {

namespace {
constexpr const char* kWhy =
    "this build of Ember has no NCCL support (no CUDA or NCCL headers at build time)";
[[noreturn]] void unavailable() { throw Error(std::string("collectives: unavailable: ") + kWhy); }
}  // namespace

bool collectives_available(std::string* why) {
  if (why) *why = kWhy;
  return false;
}
std::string collectives_version() { return "none"; }
CommId new_comm_id() { unavailable(); }
std::unique_ptr<Communicator> join_group(Backend&, int, int, const CommId&) { unavailable(); }
std::vector<std::unique_ptr<Communicator>> local_group(std::span<Backend* const>) { unavailable(); }
void grouped(const std::function<void()>&) { unavailable(); }

}  // namespace ember::runtime
