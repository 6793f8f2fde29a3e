#pragma once
// The CUDA driver API and NVRTC, resolved at run time with dlopen (versioned symbols such as
// cuMemAlloc_v2), so no Ember binary links against them: without a driver CUDA is reported
// unavailable instead of the binary failing to start.
#include <cuda.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#include "runtime/cuda/nvrtc.h"

namespace ember::runtime::cuda {

// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_CU_FUNCS(X)                               \
  X(cuInit, cuInit)                                     \
  X(cuDeviceGetCount, cuDeviceGetCount)                 \
  X(cuDeviceGet, cuDeviceGet)                           \
  X(cuDeviceGetName, cuDeviceGetName)                   \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute)         \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
  X(cuCtxSetCurrent, cuCtxSetCurrent)                   \
  X(cuMemAlloc, cuMemAlloc_v2)                          \
  X(cuMemFree, cuMemFree_v2)                            \
  X(cuMemcpyHtoD, cuMemcpyHtoD_v2)                      \
  X(cuMemcpyDtoH, cuMemcpyDtoH_v2)                      \
  X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2)            \
  X(cuStreamCreate, cuStreamCreate)                     \
  X(cuStreamSynchronize, cuStreamSynchronize)           \
  X(cuModuleLoadData, cuModuleLoadData)                 \
  X(cuModuleGetFunction, cuModuleGetFunction)           \
  X(cuFuncSetAttribute, cuFuncSetAttribute)             \
  X(cuModuleUnload, cuModuleUnload)                     \
  X(cuLaunchKernel, cuLaunchKernel)                     \
  X(cuEventCreate, cuEventCreate)                       \
  X(cuEventRecord, cuEventRecord)                       \
  X(cuEventSynchronize, cuEventSynchronize)             \
  X(cuEventQuery, cuEventQuery)                         \
  X(cuEventDestroy, cuEventDestroy_v2)                  \
  X(cuEventElapsedTime, cuEventElapsedTime_v2)          \
  X(cuGetErrorString, cuGetErrorString)                 \
  X(cuDriverGetVersion, cuDriverGetVersion)
// clang-format on

// CUDA graphs (CUDA 12 names); optional: without them sequences launch kernel by kernel.
// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_CU_GRAPH_FUNCS(X)                                        \
  X(cuGraphCreate, cuGraphCreate)                                      \
  X(cuGraphDestroy, cuGraphDestroy)                                    \
  X(cuGraphAddKernelNode, cuGraphAddKernelNode_v2)                     \
  X(cuGraphInstantiate, cuGraphInstantiateWithFlags)                   \
  X(cuGraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams_v2) \
  X(cuGraphExecDestroy, cuGraphExecDestroy)                            \
  X(cuGraphLaunch, cuGraphLaunch)
// clang-format on

// Stream capture and child graphs, for graphs holding other libraries' work (NCCL collectives);
// optional: without them such sequences launch call by call.
// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_CU_CAPTURE_FUNCS(X)                             \
  X(cuStreamBeginCapture, cuStreamBeginCapture_v2)            \
  X(cuStreamEndCapture, cuStreamEndCapture)                   \
  X(cuStreamWaitEvent, cuStreamWaitEvent)                     \
  X(cuStreamCreateWithPriority, cuStreamCreateWithPriority)   \
  X(cuCtxGetStreamPriorityRange, cuCtxGetStreamPriorityRange) \
  X(cuGraphAddChildGraphNode, cuGraphAddChildGraphNode)       \
  X(cuGraphExecChildGraphNodeSetParams, cuGraphExecChildGraphNodeSetParams)
// clang-format on

// clang-format off: one entry per line (clang-format does not keep X-macro lists stable)
#define EMBER_NVRTC_FUNCS(X) \
  X(nvrtcCreateProgram)      \
  X(nvrtcCompileProgram)     \
  X(nvrtcDestroyProgram)     \
  X(nvrtcGetProgramLog)      \
  X(nvrtcGetProgramLogSize)  \
  X(nvrtcGetCUBIN)           \
  X(nvrtcGetCUBINSize)       \
  X(nvrtcGetPTX)             \
  X(nvrtcGetPTXSize)         \
  X(nvrtcVersion)
// clang-format on

struct Driver {
#define EMBER_CU_DECLARE(name, symbol) decltype(&::symbol) name = nullptr;
  EMBER_CU_FUNCS(EMBER_CU_DECLARE)
  EMBER_CU_GRAPH_FUNCS(EMBER_CU_DECLARE)
  EMBER_CU_CAPTURE_FUNCS(EMBER_CU_DECLARE)
#undef EMBER_CU_DECLARE
  // Tensor maps for Hopper's bulk tensor copies (CUDA 12); optional: null, no launch may carry a
  // TiledView.
  decltype(&::cuTensorMapEncodeTiled) cuTensorMapEncodeTiled = nullptr;
  bool has_graphs = false;   // every EMBER_CU_GRAPH_FUNCS symbol resolved
  bool has_capture = false;  // and every EMBER_CU_CAPTURE_FUNCS one
};

struct Nvrtc {
#define EMBER_NVRTC_DECLARE(name) decltype(&::name) name = nullptr;
  EMBER_NVRTC_FUNCS(EMBER_NVRTC_DECLARE)
#undef EMBER_NVRTC_DECLARE
};

// Null (with the reason in `why`) when the library cannot be loaded or initialised.
const Driver* driver(std::string* why = nullptr);
const Nvrtc* nvrtc(std::string* why = nullptr);

// Throws ember::Error naming `what` and the driver's message unless r is CUDA_SUCCESS.
void check(CUresult r, const char* what);

}  // namespace ember::runtime::cuda
