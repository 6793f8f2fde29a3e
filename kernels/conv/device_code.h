#pragma once
// The conv family's hand-written CUDA device code, embedded from the .cuh files beside this
// header at build time (kernels/CMakeLists.txt).
namespace ember::kernels::conv {

extern const char kConvGatherCuh[];  // conv_gather.cuh: the tiles' arguments and input gather
extern const char kConvMmaCuh[];     // conv_mma.cuh: the implicit-GEMM tensor-core tile
extern const char kConvSimtCuh[];    // conv_simt.cuh: the implicit-GEMM f32 tile

}  // namespace ember::kernels::conv
