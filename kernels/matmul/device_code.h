#pragma once
// The matmul family's hand-written CUDA device code, embedded from the .cuh files beside this
// header at build time (kernels/CMakeLists.txt).
namespace ember::kernels::matmul {

extern const char kMmaSyncCuh[];    // mma_sync.cuh: cp.async, ldmatrix, mma.sync and its tile
extern const char kWgmmaCuh[];      // wgmma.cuh: Hopper's warpgroup tiles
extern const char kWgmmaTmaCuh[];   // wgmma_tma.cuh: warpgroup tiles fed by the copy engine
extern const char kWgmmaTf32Cuh[];  // wgmma_tf32.cuh: the TF32 warpgroup tile for an N-major B
extern const char kSimtTileCuh[];   // simt_tile.cuh: the f32 vector tile

}  // namespace ember::kernels::matmul
