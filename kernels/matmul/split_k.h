#pragma once
// Split-K: the product is computed as S partial products over K/S each (one batch entry per
// part), then summed over the parts in f32. Tensor-core products with few output tiles and a long
// K split themselves (a weight gradient over many tokens); so do f32 SIMT weight gradients (a
// transposed A) with few tiles and K of at least 8192 on CUDA (split_k.cc). Other f32 SIMT ones
// only on request (EMBER_SPLIT_K=S): on the H100 (run 66) a 1024 x 16384 x 1024 f32 matmul ran
// 1.60 ms split in four against 1.22 ms whole on CUDA (2.50 against 1.56 on Vulkan), the whole one
// taking a smaller per-thread block to fill the device; choosing S needs the tuner to time graph
// rewrites, which it does not yet. A graph-to-graph transform applied before planning, like
// split_long_reductions.
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"

namespace ember::jit {

// The parts matmul `mm` of `g` is split into on `backend`: a tensor-core product with too few
// output tiles to fill the device and a long K, by itself, and so an f32 SIMT weight gradient
// with a very long K on a device that reports its compute units (EMBER_AUTO_SPLIT_K=0: never);
// EMBER_SPLIT_K=S (a power of two up to 16) for an f32 matmul on the SIMT template whose K it
// divides; else 1.
int split_k_parts(const ir::Graph& g, ir::ValueId mm, const runtime::Backend& backend);
// EMBER_SPLIT_K's parts (a power of two in 2..16), else 0.
int split_k_requested();
// Whether tensor-core products split themselves (EMBER_AUTO_SPLIT_K, on by default).
bool auto_split_k();

// Whether any matmul of `g` would be split.
bool has_split_k(const ir::Graph& g, const runtime::Backend& backend);

// `g` with those matmuls split; `outputs` is rewritten to the new ids (`old_to_new`: as
// ir::rewrite's).
ir::Graph split_k_matmuls(const ir::Graph& g, std::vector<ir::ValueId>& outputs,
                          const runtime::Backend& backend,
                          std::vector<ir::ValueId>* old_to_new = nullptr);

}  // namespace ember::jit
