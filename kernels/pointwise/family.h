#pragma once
// The pointwise family: one thread per element of the index space (a grid-stride loop, maybe
// 4-wide), storing every output at that element; elementwise chains and views fuse in.
#include "kernels/family.h"

namespace ember::jit {

const Family& pointwise_family();

}  // namespace ember::jit
