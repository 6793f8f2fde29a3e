#pragma once
// Which intermediates a kernel may overwrite with its outputs (in-place buffer reuse).
#include <vector>

#include "ir/graph.h"
#include "jit/codegen/kernel.h"

namespace ember::jit {

// The bindings of `k` that an output may take the buffer of, were the value to die in this
// kernel: read only at the element the reading thread itself writes (`at_home`), never written,
// and loaded only before the kernel's first store. The last condition is what makes reuse
// sound: a thread that stores an output before loading the donor at that element would read
// its own output. It is checked on the kernel description, so no lowering can break it.
std::vector<ir::ValueId> in_place_donors(const KernelDesc& k,
                                         const std::vector<ir::ValueId>& bindings,
                                         const std::vector<bool>& writes,
                                         const std::vector<bool>& at_home);

}  // namespace ember::jit
