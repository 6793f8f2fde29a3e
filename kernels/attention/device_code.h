#pragma once
// The attention family's hand-written CUDA device code, embedded from the .cuh files beside this
// header at build time (kernels/CMakeLists.txt).
namespace ember::kernels::attention {

extern const char kFlashFwdCuh[];  // flash_fwd.cuh: the fused forward on tensor cores
extern const char kFlashBwdCuh[];  // flash_bwd.cuh: the fused backward (dq; dk and dv)

}  // namespace ember::kernels::attention
