#pragma once
// Autotuning of the matmul template's per-thread block (1, 2, 4 or 8 outputs squared): the
// choice for a flush's matmul kernels comes from the autotune cache when it holds the problem's
// key (EMBER_AUTOTUNE=cached|on), else from the heuristic; with EMBER_AUTOTUNE=on a key not in
// the cache is tuned on the device the first time a flush launches such a kernel.
#include <functional>
#include <string>
#include <vector>

#include "autotune/key.h"
#include "ir/graph.h"
#include "jit/plan.h"
#include "runtime/backend.h"

namespace ember::jit {

inline constexpr int kMatmulBlocks[] = {1, 2, 4, 8};

autotune::TuneKey matmul_tune_key(const ir::Graph& g, ir::ValueId mm,
                                  const runtime::Backend& backend);

// What a flush uses for one matmul node: EMBER_MATMUL_BLOCK when set, else the cached winner,
// else the heuristic; and, for a key to tune now (mode on, not cached), the key.
struct MatmulChoice {
  int block = 0;
  bool mma = false;      // the tensor-core template (when the operands allow it)
  std::string tune_key;  // empty: nothing to tune
};

// One choice per node of `g` (default for non-matmul nodes), decided once per flush: the plan
// key, the plan and the launches all read these.
std::vector<MatmulChoice> choose_matmul_blocks(const ir::Graph& g, const runtime::Backend& backend);

// Tunes `mm`'s key: `time_block(block)` runs the kernel built with that block once and returns
// its device time in ms (< 0 or a throw: failed or wrong). Records the entry, prints it under
// EMBER_DUMP=autotune, and returns the winner (the heuristic's block when none worked).
int tune_matmul_block(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend,
                      const std::function<double(int)>& time_block);

}  // namespace ember::jit
