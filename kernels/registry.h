#pragma once
// The kernel families, in the order the planner asks them which nodes they anchor.
#include <span>

#include "kernels/family.h"

namespace ember::jit {

std::span<const Family* const> families();
// The family whose kernels start at node n: the first that anchors it, else the pointwise one.
const Family& family_for(const ir::Node& n);
const Family& pointwise_family();

}  // namespace ember::jit
