// Built instead of the CUDA backend when the CUDA headers were absent at build time: CUDA is
// then reported unavailable, with the reason.
#include "ir/error.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/nvrtc.h"

namespace ember::runtime {

namespace {
constexpr const char* kWhy =
    "this build of Ember has no CUDA support (no CUDA headers at build time)";
}

int cuda_device_count(std::string* why) {
  if (why) *why = kWhy;
  return 0;
}

Backend& cuda_backend(int) { throw Error(std::string("cuda: unavailable: ") + kWhy); }

namespace cuda {
std::vector<char> nvrtc_compile(const std::string&, const std::string&, const std::string&, bool) {
  throw Error(std::string("cuda: NVRTC unavailable: ") + kWhy);
}
std::string nvrtc_version() { return "none"; }
}  // namespace cuda

}  // namespace ember::runtime
