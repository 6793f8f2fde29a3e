#pragma once
// The conv family's hand-written CUDA device code, embedded from the .cuh files beside this
// header at build time (kernels/CMakeLists.txt).
namespace ember::kernels::conv {

extern const char kConvMmaCuh[];  // conv_mma.cuh: the implicit-GEMM tensor-core tile

}  // namespace ember::kernels::conv
