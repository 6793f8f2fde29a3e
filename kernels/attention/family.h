#pragma once
// The attention family: a scaled dot-product attention node (ir::OpKind::Attention) as one fused
// kernel where the device has one for its operands (CUDA tensor cores, sm_80 on: f16/bf16 with
// head dims of 64 or 128, flash_fwd.cuh); everywhere else the node is rewritten into its
// composite (ir/attention_compose.h) before planning, so other families run it.
// EMBER_FUSED_ATTENTION=0 rewrites every node (the composite as a baseline).
#include "kernels/family.h"

namespace ember::jit {

const Family& attention_family();

// Whether `backend` has a fused attention kernel for this dtype and head dim (key and value
// head dims equal).
bool attention_fuses(const runtime::Backend& backend, DType dtype, int64_t head_dim);

// Whether `backend` runs attention node n as one fused kernel.
bool fused_attention(const ir::Graph& g, const ir::Node& n, const runtime::Backend& backend);

}  // namespace ember::jit
