#pragma once
// The driver handles behind a CUDA Backend and its arrays, for code inside runtime/ that calls
// CUDA libraries on the backend's stream (NCCL).
#include <cuda.h>

#include "runtime/backend.h"

namespace ember::runtime::cuda {

struct NativeDevice {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  int ordinal = 0;
};

// Throws ember::Error when `backend` is not a CUDA backend.
NativeDevice native_device(Backend& backend);
// The device address of the view's first element (its buffer's base plus the offset).
CUdeviceptr device_pointer(const Array& a);
// Makes the backend's context current on the calling thread.
void make_current(const NativeDevice& device);

}  // namespace ember::runtime::cuda
