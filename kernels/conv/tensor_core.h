#pragma once
// The conv family's tiles (kernels/conv/conv_mma.cuh on tensor cores, conv_simt.cuh in exact f32):
// which convolutions they take, how they read their operands, and their lowering. CUDA sm_80 and
// later; f16 and bf16, f32 as TF32 where allowed (allow_tf32), else exact f32 on the SIMT tile;
// 1-d and 2-d convolutions whose input is a strided view of a
// stored value and whose weight rows (one per output channel) are contiguous and 16-byte
// aligned, with K up to 8192 (the tile's table of k offsets, 8 bytes each, stays within 64 KiB of
// shared memory).
#include <iterator>
#include <optional>
#include <vector>

#include "kernels/conv/output.h"
#include "kernels/conv/tuning.h"
#include "kernels/family.h"
#include "kernels/matmul/operands.h"
#include "runtime/backend.h"

namespace ember::jit {

// The tiles (MmaTile; 1-based ids in the family's variant). Two stages (the A gather runs one
// k-tile ahead in registers) or three (two ahead, in two register sets).
inline constexpr MmaTile kConvMmaTiles[] = {
    {4, 2, 2, 4, 2, 64},   // 128 x 64, 32 x 32 per warp
    {4, 2, 2, 4, 2, 128},  // 128 x 64, twice the k per stage
    {2, 4, 4, 4, 2, 64},   // 128 x 128, 64 x 32 per warp
    {2, 4, 4, 4, 2, 128},  // 128 x 128, twice the k per stage
    {2, 2, 2, 4, 2, 64},   // 64 x 64 (4 warps)
    {2, 2, 2, 4, 2, 128},  // 64 x 64, twice the k per stage
    {2, 4, 2, 2, 2, 64},   // 64 x 64 (8 warps of 32 x 16): four threads gather each pixel
    {2, 2, 2, 4, 3, 64},   // 64 x 64, three stages: the gather two k-tiles ahead
    {4, 2, 2, 4, 3, 64},   // 128 x 64, three stages
    {8, 1, 1, 8, 2, 64},   // exact f32 without tensor cores (conv_simt.cuh): 128 x 64, 8 x 4 each
    {4, 4, 1, 2, 2, 64},   // exact f32, 64 x 64 shared by four groups of 128 threads (split k)
    {4, 2, 1, 4, 2, 64},   // exact f32, 64 x 64 shared by two groups (split k), three per SM
                           // where their shared memory fits
};
inline constexpr int kConvMmaTileCount = static_cast<int>(std::size(kConvMmaTiles));
// The last three tiles are exact f32's (conv_simt.cuh), the others f16/bf16 and TF32 ones.
inline constexpr int kConvSimtTile = kConvMmaTileCount - 2;
inline constexpr int kConvSimtSplitTile = kConvMmaTileCount - 1;
inline constexpr int kConvSimtSplit2Tile = kConvMmaTileCount;
// The conv family's variant for tile T is kConvMmaVariant | T.
inline constexpr Variant kConvMmaVariant = Variant{1} << 16;

struct ConvTile {
  MmaShape shape;
  StridedOperand x;  // the input [N, C, spatial...]
  StridedOperand w;  // the weight [O, C / groups, kernel...]
  int64_t w_ld = 0;  // elements between output channels' weight rows
};

// Whether conv node y's dtype and rank suit a tile at all (before its operands are looked at).
bool conv_tile_dtype_fits(const ir::Graph& g, ir::ValueId y);
// Whether conv node y runs the exact f32 tiles (from kConvSimtTile on) rather than the
// tensor-core ones.
bool conv_tile_is_simt(const ir::Graph& g, ir::ValueId y);
// The tile `tile` (1-based) for conv node y, or nullopt when its operands do not suit it or it
// needs more than `max_shared` bytes of shared memory (its stages and k table).
std::optional<ConvTile> conv_tile(const ir::Graph& g, const std::vector<char>& stored,
                                  const Emitter::LayoutFn& layout, ir::ValueId y, int tile,
                                  int64_t max_shared);
// The most dynamic shared memory a workgroup may opt in to on `backend` (by its target).
int64_t max_dynamic_shared(const runtime::Backend& backend);
// The exact f32 tile for conv node n: the 128 x 64 tile for problems of at least 264 of its
// tiles (two per SM of a large GPU); below that, a split-k 64 x 64 tile for reductions of at
// least 1024 (two groups, three per SM; EMBER_CONV_SIMT_SPLIT=4: four groups, one per SM); else 0
// (the SIMT template). H200, conv_block_train's weight gradients (32 groups of
// 576 x 64 outputs, K = 3136, 160 blocks of 128 x 64): 0.494 ms each on the 128 x 64 tile, 0.458
// on the SIMT template, 0.326 on the split-k tile (session 25, calls 5, 6 and 8). Two groups at
// three per SM against four at one, in two row parts: each part 0.178 ms alone either way, the
// step's device time 1.62 ms against 1.70 (their kernels share the SMs better; session 28, call 2).
int conv_simt_tile_for(const ConvShape& s);
// Whether the tiles read operand `in` of conv node y in place (values computed in the flush
// laid out contiguously), or could not read it stored either (weight rows of K not a multiple of
// 16 bytes): a weight or input that they could read stored is stored for them.
bool conv_tile_reads(const ir::Graph& g, const std::vector<char>& stored, ir::ValueId y,
                     ir::ValueId in);
// The tile's kernel: one workgroup per block of the per-group product, the fused epilogue from
// the accumulators.
void lower_conv_tile(const ir::Graph& g, Emitter& e, const KernelPlan& kp, const ConvTile& t,
                     KernelGeometry& out);
// The tensor-core tile for an M x N x K product with `groups` groups: 64 x 64 up to 64 output
// channels per group (H200, conv2d_resnet bf16: 0.142 ms against 0.172 for 128 x 64, session 25),
// 128 x 128 above unless that would leave a large GPU's SMs idle.
int conv_tile_heuristic(int64_t groups, int64_t M, int64_t N);

}  // namespace ember::jit
