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

// The block for matmul node `mm`: the cached winner, else the heuristic (0 on the CPU).
int chosen_matmul_block(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend);

// Whether `mm`'s key should be tuned now (mode on for this device, key not cached).
bool matmul_needs_tuning(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend);

// Tunes `mm`'s key: `time_block(block)` runs the kernel built with that block once and returns
// its device time in ms (< 0 or a throw: failed or wrong). Records the entry, prints it under
// EMBER_DUMP=autotune, and returns the winner (the heuristic's block when none worked).
int tune_matmul_block(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend,
                      const std::function<double(int)>& time_block);

}  // namespace ember::jit
