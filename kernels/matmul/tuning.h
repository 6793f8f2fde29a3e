#pragma once
// Autotuning of the matmul templates: the SIMT template's per-thread block (1, 2, 4 or 8 outputs
// squared) and the tensor-core template's tile (kMmaTiles). The choice for a flush's matmul
// kernels comes from the autotune cache when it holds the problem's key
// (EMBER_AUTOTUNE=cached|on), else from the heuristic; with EMBER_AUTOTUNE=on a key not in the
// cache is tuned on the device by the first flush that freezes such a kernel (jit/tune/freeze.h).
#include <functional>
#include <string>
#include <vector>

#include "autotune/key.h"
#include "ir/graph.h"
#include "kernels/matmul/tiles.h"
#include "runtime/backend.h"

namespace ember::jit {

// SIMT variants: the SIMT template's blocks, then (CUDA only) the vector tiles.
inline constexpr int kMatmulBlocks[] = {1, 2, 4, 8, kVectorTileBlock, kNarrowVectorTileBlock};

// Whether `backend` has tensor cores (CUDA sm_80 and later: mma.sync, cp.async).
bool has_tensor_cores(const runtime::Backend& backend);

// Whether `mm` runs on tensor cores on `backend` (CUDA sm_80+, f16/bf16, or f32 with TF32
// allowed, and not EMBER_MMA=0).
bool wants_mma(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend);

// The key of `mm`'s problem; tensor-core problems are their own family ("matmul_mma"), with
// f32 spelled "tf32".
autotune::TuneKey matmul_tune_key(const ir::Graph& g, ir::ValueId mm,
                                  const runtime::Backend& backend);

// What a flush uses for one matmul node: forced by EMBER_MATMUL_BLOCK / EMBER_MMA_TILE when
// set, else the cached winner, else the heuristic; and, for a key to tune now (mode on, not
// cached), the key. `mma` > 0 selects tensor-core tile kMmaTiles[mma - 1]; `block` is the SIMT
// template's (used too when the operands do not suit tensor cores).
struct MatmulChoice {
  int block = 0;
  int mma = 0;
  // SIMT template pipeline stages: 2 on CUDA (H100, run 59: matmul_4096_f32 3.86 -> 3.78 ms,
  // mlp_train_step 3.38 -> 2.57 ms), 1 on Vulkan, whose NVIDIA compiler ran the two-stage kernel
  // slower (3.97 -> 5.51 ms).
  int stages = 1;
  std::string tune_key;  // empty: nothing to tune
};

// The choice for matmul node `mm` (before its operands are looked at: matmul_family's choose
// then keeps it only where they admit it).
MatmulChoice choose_matmul(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend);

// choose_matmul for every matmul node of `g` (default for other nodes; none at all when `g` has
// no matmul).
std::vector<MatmulChoice> choose_matmul_blocks(const ir::Graph& g, const runtime::Backend& backend);

// Tunes `mm`'s key over its template's variants (blocks, or tensor-core tile ids when `mma`):
// `time_variant(v)` runs the kernel built with variant v once and returns its device time in
// ms (< 0 or a throw: failed or wrong). Records the entry, prints it under
// EMBER_DUMP=autotune, and returns the winner (the heuristic's variant when none worked).
int tune_matmul(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend, bool mma,
                const std::function<double(int)>& time_variant);

}  // namespace ember::jit
