#pragma once
// The scatter family: scatter-add over the target's shape, without atomics (each target element
// sums the values whose index points at it, in their order: deterministic). A scatter over many
// more targets than values (an embedding's gradient) is rewritten before planning so that its
// index is sorted; its kernel then finds each target's values by binary search instead of
// reading the whole index.
#include "kernels/family.h"

namespace ember::jit {

const Family& scatter_family();

}  // namespace ember::jit
