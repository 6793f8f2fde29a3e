#pragma once
// Autotuning of the row template (reductions with their fused prologue and epilogue): threads
// per workgroup, one workgroup per row. More threads split a row finer (fewer elements per
// thread, fewer registers, a longer block reduction); fewer keep more rows in flight per SM.
// Chosen like matmul variants (kernels/matmul/tuning.h): forced by EMBER_ROW_WORKGROUP, else the
// cached winner, else the heuristic (row_workgroup_heuristic); with EMBER_AUTOTUNE=on a key not in
// the cache is tuned by the first flush that freezes such a kernel (jit/tune/freeze.h).
#include <functional>
#include <string>
#include <vector>

#include "autotune/key.h"
#include "ir/graph.h"
#include "runtime/backend.h"

namespace ember::jit {

inline constexpr int kRowWorkgroups[] = {64, 128, 256, 512, 1024};
inline constexpr int kRowWorkgroupDefault = 256;

// Rows at least kThreadRowsMinRows many, each up to kThreadRowsMaxShort long, or at least
// kThreadRowsMinLongRows many up to kThreadRowsMaxStrided long when the reduced axis is not
// innermost, run a thread per row (RowChoice::thread_rows). Longer rows need more of them to
// keep a GPU busy with a thread each: mlp_train_step's bias gradients (2048 strided rows of
// 1024) were slower so on an H100.
inline constexpr int64_t kThreadRowsMinRows = 1024;
inline constexpr int64_t kThreadRowsMinLongRows = 16384;
inline constexpr int64_t kThreadRowsMaxShort = 32;
inline constexpr int64_t kThreadRowsMaxStrided = 4096;
// The workgroup of a kernel that gives each thread rows of its own.
inline constexpr int kThreadRowsWorkgroup = 128;

struct RowChoice {
  int workgroup = 0;  // 0 for nodes that are not reductions
  // Each of the workgroup's threads takes whole rows (no cooperation within a row): for many
  // short or strided rows, where a workgroup per row leaves most threads idle and reads
  // strided elements a cache line each, while adjacent threads on adjacent rows read
  // consecutive elements of a strided axis.
  bool thread_rows = false;
  std::string tune_key;  // empty: nothing to tune
};

// Family "row"; sizes rows x row length; flags: the reduced input's dtype, whether the reduced
// axis is the last (contiguous rows), and the graph's reductions over rows of that shape.
autotune::TuneKey row_tune_key(const ir::Graph& g, ir::ValueId reduce,
                               const runtime::Backend& backend);

// Threads per row when nothing is forced, stored or tuned: about eight elements per thread on
// contiguous rows of 1024 or more (128 to 512 threads), 128 on strided rows that long, else 256.
// H100 (run 45): Vulkan's transformer_block ran 42.7 ms with 128-thread rows and 57.6 ms with
// 256, its rows being 1024 long; CUDA's tuning picked 512 for the 4096-long rows of layernorm
// and softmax.
int row_workgroup_heuristic(const ir::Graph& g, ir::ValueId reduce);
// Whether the heuristic gives `reduce`'s rows a thread each (see RowChoice::thread_rows).
bool row_thread_rows_heuristic(const ir::Graph& g, ir::ValueId reduce);

// EMBER_THREAD_ROWS=0 keeps every row kernel a workgroup per row (and column sums whole): the
// baseline of an A/B measurement of the thread-per-row kernels.
bool thread_rows_allowed();

// The choice for reduction `reduce`: forced, stored or the heuristic's, and the key to tune now.
RowChoice choose_row(const ir::Graph& g, ir::ValueId reduce, const runtime::Backend& backend);

// One choice per node of `g` (none at all when `g` has no reduction); a row kernel uses its first
// reduction's.
std::vector<RowChoice> choose_row_workgroups(const ir::Graph& g, const runtime::Backend& backend);

// Tunes `reduce`'s key: `time_variant(wg)` runs the kernel with that workgroup size once and
// returns its device time in ms (< 0 or a throw: failed or wrong). Returns the winner.
// Times each workgroup (`time_variant(workgroup, thread_rows)`), the thread-per-row kernel
// among them, and returns the winner.
RowChoice tune_row(const ir::Graph& g, ir::ValueId reduce, const runtime::Backend& backend,
                   const std::function<double(int, bool)>& time_variant);

}  // namespace ember::jit
