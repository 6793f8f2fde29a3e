#pragma once
// Long reductions over few rows (a loss's mean over a whole batch) would run as a handful of
// workgroups each walking millions of elements. This rewrite splits each such reduction in two:
// over chunks of the reduced axis, then over the chunks' partial results, so both halves spread
// over many workgroups. Column sums with few columns are split the same way, so that their
// first pass has a thread per column and part. A graph-to-graph transform applied before
// planning.
#include <vector>

#include "ir/graph.h"

namespace ember::jit {

// Whether any reduction of `g` would be split (cheap: the rewrite copies the graph only then).
// `columns`: column sums (strided rows, too few for a thread each) are split too (GPUs, where
// the thread-per-row kernels run them).
bool has_long_reductions(const ir::Graph& g, bool columns);

// `g` with its long reductions split; `outputs` is rewritten to the new ids (`old_to_new`: as
// ir::rewrite's).
ir::Graph split_long_reductions(const ir::Graph& g, std::vector<ir::ValueId>& outputs, bool columns,
                                std::vector<ir::ValueId>* old_to_new = nullptr);

}  // namespace ember::jit
