#pragma once
// Autotuning of the pointwise template (elementwise kernels, fused chains included): threads per
// workgroup, elements per thread (the grid-stride loop's unroll) and vector width (4-element
// accesses where every output is a 4-byte dtype and the size divides by 4, else scalars). Chosen
// like the row and matmul variants: forced by EMBER_POINTWISE=<config>, else the cached winner,
// else the heuristic (256 threads, 4 per thread, 4-wide when possible), when a flush freezes its
// plan (jit/tune/freeze.h), as for every family: a plan reused at other sizes gets the
// configurations of those sizes. With EMBER_AUTOTUNE=on a key not in the cache is tuned by the
// flush that freezes it. Kernels under kMinTunedElements are launch-bound and keep the
// heuristic.
#include <functional>
#include <string>
#include <vector>

#include "autotune/key.h"
#include "ir/graph.h"
#include "kernels/kernel_plan.h"
#include "runtime/backend.h"

namespace ember::jit {

struct PointwiseConfig {
  int threads = 256;
  // Iterations of the grid-stride loop per thread (elements or 4-vectors): by default enough
  // independent loads in flight to cover memory latency on large GPUs without starving small
  // tensors of threads.
  int unroll = 4;
  int vector = 4;  // 4: 4-element accesses where the kernel allows them; 1: scalars
};

inline constexpr int kPointwiseThreads[] = {128, 256, 512};
inline constexpr int kPointwiseUnrolls[] = {1, 2, 4, 8};
inline constexpr int64_t kMinTunedElements = 1 << 16;

// A configuration as KernelPlan::pointwise holds it (> 0), and back (0 and unknown values: the
// default configuration).
int pointwise_variant(const PointwiseConfig& c);
PointwiseConfig pointwise_config(int variant);

// "threads=256,unroll=4,vector=4": how the store and EMBER_POINTWISE write a configuration;
// variant_of gives 0 for anything else.
std::string config_string(const PointwiseConfig& c);
int variant_of(const std::string& config);

// Whether the kernel can use 4-element accesses: 4-byte outputs, a size divisible by 4 and at
// least 1024 (smaller kernels are launch-bound).
bool vectorizable(const ir::Graph& g, const KernelPlan& kp);

// Family "pointwise"; sizes: elements; flags: the outputs' dtypes, whether 4-wide accesses are
// possible, and the number of outputs.
autotune::TuneKey pointwise_tune_key(const ir::Graph& g, const KernelPlan& kp,
                                     const runtime::Backend& backend);

// The variant for `kp` (forced, stored or heuristic); `tune_key` receives the key when the kernel
// should be tuned now (EMBER_AUTOTUNE=on, not stored, large enough), else is cleared.
int choose_pointwise(const ir::Graph& g, const KernelPlan& kp, const runtime::Backend& backend,
                     std::string* tune_key);

// Tunes `kp`'s key: `time_variant(v)` runs the kernel with variant v and returns its device time
// in ms (< 0 or a throw: failed or wrong). Returns the winner.
int tune_pointwise(const ir::Graph& g, const KernelPlan& kp, const runtime::Backend& backend,
                   const std::function<double(int)>& time_variant);

}  // namespace ember::jit
