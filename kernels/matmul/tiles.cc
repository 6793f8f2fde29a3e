#include "kernels/matmul/tiles.h"

namespace ember::jit {
namespace {

// Matmuls use the largest per-thread block (8, 4, 2 or 1 squared) that leaves at least this many
// workgroups: two per SM on a 132-SM GPU.
constexpr int64_t kMatmulMinTiles = 256;
constexpr int kTile = kMatmulTile;

}  // namespace

int matmul_block(int64_t m, int64_t n, int64_t batch) {
  // The largest per-thread block that still leaves enough workgroups to fill a large GPU.
  for (int r : {8, 4, 2}) {
    int64_t tiles =
        batch * ((m + kTile * r - 1) / (kTile * r)) * ((n + kTile * r - 1) / (kTile * r));
    if (tiles >= kMatmulMinTiles) return r;
  }
  return 1;
}

int mma_tile_heuristic(int64_t m, int64_t n, int64_t batch, bool wgmma) {
  // H100 (autotune sweep, bf16 and TF32 at 4096 and 8192): 128 x 256 with 128-byte k-rows
  // wins by 10-18% over the 64-byte ones; 64 x 128 wins at 1024. With wgmma fed by the copy
  // engine (bf16, session 8): 128 x 256 1.60 ms at 8192, 128 x 128 2.07 (5 stages) and 2.33 (3
  // stages), 192 x 256 (cp.async: no room for a producer warpgroup's registers) 2.27.
  constexpr int64_t kMinTiles = 128;
  constexpr int kWgmmaIds[] = {10, 11}, kSyncIds[] = {6, 1};
  for (int id : wgmma ? kWgmmaIds : kSyncIds) {
    const MmaTile& t = kMmaTiles[id - 1];
    int64_t bm = t.block_m(), bn = t.block_n();
    if (batch * ((m + bm - 1) / bm) * ((n + bn - 1) / bn) >= kMinTiles) return id;
  }
  // Few tiles: on Hopper still a 128 x 128 wgmma tile (bf16 1024: 0.014 ms against 0.018 for
  // mma.sync 64 x 128, session 8's autotune run), else the small mma.sync tile.
  return wgmma ? 11 : 5;
}

int mma_sync_tile(int id) {
  const MmaTile& t = kMmaTiles[id - 1];
  if (!t.wgmma) return id;
  return t.block_n() == 256 ? 6 : 7;  // the same block tile with 128-byte k-rows
}

}  // namespace ember::jit
