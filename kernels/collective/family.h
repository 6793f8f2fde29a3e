#pragma once
// The collective family: a collective between ranks (ir::OpKind::Collective) is a kernel of
// its own that no compiled code runs: the launch stage hands it to the backend as external work
// (NCCL, runtime/collectives.h) between the kernels computing its operand and those reading its
// result. Its operand is always stored, contiguous, as NCCL reads it.
#include "kernels/family.h"

namespace ember::jit {

const Family& collective_family();

}  // namespace ember::jit
