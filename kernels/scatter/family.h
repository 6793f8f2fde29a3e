#pragma once
// The scatter family: scatter-add over the target's shape, without atomics (each target element
// sums the values whose index points at it).
#include "kernels/family.h"

namespace ember::jit {

const Family& scatter_family();

}  // namespace ember::jit
