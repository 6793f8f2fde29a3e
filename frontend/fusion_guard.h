#pragma once
// Scoped switch between fused kernels and one kernel per primitive (EMBER_FUSION=0 does the same
// for the whole process): the unfused baseline the benchmarks compare against.
namespace ember {

class FusionGuard {
 public:
  explicit FusionGuard(bool enabled);
  ~FusionGuard();
  FusionGuard(const FusionGuard&) = delete;
  FusionGuard& operator=(const FusionGuard&) = delete;
};

}  // namespace ember
