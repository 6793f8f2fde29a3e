#pragma once
// The sort family: values or indices of a sort along one axis (rank sort: exact and stable).
#include "kernels/family.h"

namespace ember::jit {

const Family& sort_family();

}  // namespace ember::jit
