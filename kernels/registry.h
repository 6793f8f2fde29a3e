#pragma once
// The kernel families, in the order the planner asks them which nodes they anchor.
#include <span>

#include "kernels/family.h"

namespace ember::jit {

using FamilySet = std::span<const Family* const>;

// The GPU families (Vulkan, CUDA).
FamilySet families();
// The families that plan kernels for `backend`: the GPU ones, or the CPU target's (host, row,
// pointwise).
FamilySet families(const runtime::Backend& backend);
// The family whose kernels start at node n: the first of `set` that anchors it, else the
// pointwise one.
const Family& family_for(const ir::Node& n, FamilySet set = families());
const Family& pointwise_family();

}  // namespace ember::jit
