#pragma once
// The rnn family: an LSTM recurrence node (ir::OpKind::Lstm) as one persistent kernel per node
// where the device has one (CUDA, f32, every workgroup resident at once:
// lstm.cuh); everywhere else the node is rewritten into its composite (ir/lstm_compose.h)
// before planning, a step at a time. EMBER_FUSED_LSTM=0 rewrites every node.
#include "kernels/family.h"

namespace ember::jit {

const Family& rnn_family();

// How the fused kernel splits an LSTM of this size: each workgroup owns `units` hidden units of
// a block of `block_rows` batch rows; units 0 when it does not run it (not CUDA, not f32, a
// hidden size that is not a multiple of 4, or blocks that do not all fit on the device at once).
struct LstmSplit {
  int units = 0;
  uint32_t workgroups = 0;
  uint32_t block_rows = 0;    // a multiple of 4
  uint32_t shared_bytes = 0;  // dynamic shared memory per workgroup
};
LstmSplit lstm_split(const runtime::Backend& backend, DType dtype, int64_t batch, int64_t hidden,
                     bool gradient);

}  // namespace ember::jit
