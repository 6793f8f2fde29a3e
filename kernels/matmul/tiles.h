#pragma once
// The matmul family's templates and tiles, and how a variant names one of them.
#include <cstdint>
#include <iterator>
#include <string>

#include "jit/codegen/kernel.h"
#include "kernels/kernel_plan.h"

namespace ember::jit {

inline constexpr int kMatmulTile = 16;  // SIMT: 16 x 16 threads; K advances 16 per stage
// MatmulVariant::block selecting the CUDA f32 vector tile (MmaShape::F32Simt, 128 x 256) instead
// of the SIMT template; admitted only where its operands suit it (an N-major B, aligned rows),
// else the variant is the SIMT template with its own block for the output (matmul_block).
inline constexpr int kVectorTileBlock = 16;
// The narrow vector tile (128 x 128): for outputs that give the wide one too few tiles to fill a
// large GPU (mlp_train_step's 1024 x 2048: 64 wide tiles, 128 narrow ones).
inline constexpr int kNarrowVectorTileBlock = 17;
inline bool is_vector_tile(int block) {
  return block == kVectorTileBlock || block == kNarrowVectorTileBlock;
}

// A matmul kernel's variant: the SIMT template's per-thread block (1, 2, 4 or 8 outputs
// squared, or kVectorTileBlock) with its pipeline stages (2 loads the next k-tile into registers
// while the current one is multiplied), or tensor-core tile kMmaTiles[mma - 1] when mma > 0.
struct MatmulVariant {
  int block = 0;
  int mma = 0;
  int stages = 1;
};
inline Variant pack(const MatmulVariant& v) {
  return static_cast<Variant>(v.block) | static_cast<Variant>(v.mma) << 8 |
         static_cast<Variant>(v.stages) << 16;
}
inline MatmulVariant matmul_variant(Variant v) {
  return {static_cast<int>(v & 0xff), static_cast<int>(v >> 8 & 0xff),
          static_cast<int>(v >> 16 & 0xff)};
}

// The per-thread output block edge (1, 2, 4 or 8) of the SIMT template for an M x N output with
// `batch` matrices: the largest that still leaves enough workgroups to fill a large GPU.
int matmul_block(int64_t m, int64_t n, int64_t batch);

// The tensor-core template's tiles (8 warps each but the last; MmaTile in jit/codegen/kernel.h).
// MatmulVariant::mma is 1 + an index here. k-tile: 64 or 128 bytes of k per stage (32 or 64
// f16/bf16 elements, 16 or 32 f32). The wgmma tiles (warpgroups of 64 rows each) need Hopper
// and a K-major A, and TF32 the copy engine too (8-warp tiles, one matrix; operands.cc); where
// one of those is missing the lowering takes a mma.sync tile instead.
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

}  // namespace ember::jit
