#pragma once
// Device discovery and choice: which backends this machine has, and the one Backend object per
// device, found once and kept for the process.
#include <string>
#include <utility>

#include "runtime/backend.h"

namespace ember::runtime {

enum class BackendKind { Cpu, Vulkan, Cuda };

// "cpu", "vulkan:1", "cuda:0".
std::string device_name(BackendKind kind, int index);

// How many devices of `kind` this machine has (1 for the CPU); when none, why in `why`.
int device_count(BackendKind kind, std::string* why = nullptr);

// Device `index` of `kind`. Found once and kept: finding one enumerates the driver's devices,
// which a flush and a sync per eager step would otherwise pay. Throws ember::Error naming the
// device and the reason when it is not available.
Backend& backend(BackendKind kind, int index);

// The best device here: CUDA, then a Vulkan GPU (a CPU driver such as lavapipe is slower than
// the CPU backend), then the CPU.
std::pair<BackendKind, int> preferred_device();

}  // namespace ember::runtime
