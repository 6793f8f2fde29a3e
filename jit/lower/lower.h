#pragma once
// Lowers one kernel of a plan to a kernel description plus what launching it needs.
#include <iterator>
#include <vector>

#include "jit/lower/emitter.h"
#include "runtime/backend.h"

namespace ember::jit {

struct LoweredKernel {
  KernelDesc desc;
  std::vector<ir::ValueId> bindings;  // tensor bindings in order
  std::vector<bool> writes;
  std::vector<uint32_t> params;
  std::vector<runtime::TiledView> tiled_views;  // desc.tensor_maps of them, bindings by index
  std::vector<ErrorSite> error_sites;
  std::vector<ScalarPatch> scalar_patches;  // params holding runtime scalars of the graph
  uint64_t work_items = 0;                  // grid-stride loops cover this many threads or rows
  bool per_row = false;  // work_items counts workgroups (rows/tiles), not threads
  int fused_nodes = 0;   // primitives evaluated inside the kernel
  bool mma = false;      // a tensor-core matmul
  // Inputs every thread reads only at the element it writes (pointwise kernels): an output of
  // the same size may take such an input's buffer when the input dies here.
  std::vector<ir::ValueId> in_place_candidates;
};

// The steps each thread of a `workgroup`-thread row kernel takes over a row of this length
// when the row is kept in registers (a power of two), 0 when it is too long for that: a
// specialisation, so the plan cache keys on it.
int row_cache_steps(int64_t row_length, int workgroup);

// The per-thread output block edge (1, 2, 4 or 8) of the matmul template for an M x N output
// with `batch` matrices: a specialisation, so the plan cache keys on it.
int matmul_block(int64_t m, int64_t n, int64_t batch);

// The tensor-core template's tiles (8 warps each but the last; MmaTile in jit/kernel.h).
// KernelPlan::mma is 1 + an index here. k-tile: 64 or 128 bytes of k per stage (32 or 64 f16/bf16
// elements, 16 or 32 f32). The wgmma tiles (warpgroups of 64 rows each) need Hopper, f16/bf16 and a
// K-major A; where one of those is missing the lowering takes a mma.sync tile instead.
inline constexpr MmaTile kMmaTiles[] = {
    {2, 4, 4, 4, 3, 64},           // 128 x 128, 64 x 32 per warp
    {2, 4, 4, 8, 3, 64},           // 128 x 256, 64 x 64 per warp
    {4, 2, 4, 8, 3, 64},           // 256 x 128, 64 x 64 per warp
    {2, 4, 4, 8, 4, 64},           // 128 x 256, four stages
    {2, 4, 2, 4, 4, 64},           // 64 x 128, for problems with few tiles
    {2, 4, 4, 8, 3, 128},          // 128 x 256, twice the k per stage (half the barriers)
    {2, 4, 4, 4, 4, 128},          // 128 x 128, twice the k per stage
    {2, 4, 4, 8, 4, 128},          // 128 x 256, twice the k per stage, four stages (192 KiB)
    {4, 2, 4, 8, 3, 128},          // 256 x 128, twice the k per stage
    {8, 1, 1, 32, 4, 128, true},   // wgmma 128 x 256 (m64n256k16 per warpgroup), 4 stages
    {8, 1, 1, 16, 5, 128, true},   // wgmma 128 x 128 (m64n128k16), 5 stages
    {8, 1, 1, 16, 3, 128, true},   // wgmma 128 x 128, 3 stages (two workgroups per SM)
    {12, 1, 1, 32, 4, 128, true},  // wgmma 192 x 256: three warpgroups, 4 stages (225 KiB)
};
inline constexpr int kMmaTileCount = static_cast<int>(std::size(kMmaTiles));
// The tile (1-based) for an M x N output with `batch` matrices: the largest that still gives
// every SM of a large GPU a tile; a wgmma tile when `wgmma` (the device and dtype allow it).
int mma_tile_heuristic(int64_t m, int64_t n, int64_t batch, bool wgmma);
// A mma.sync tile to run in place of wgmma tile `id` where wgmma cannot (the operands).
int mma_sync_tile(int id);

LoweredKernel lower_kernel(const ir::Graph& g, const Plan& plan, int kernel,
                           const Emitter::LayoutFn& layout);

}  // namespace ember::jit
