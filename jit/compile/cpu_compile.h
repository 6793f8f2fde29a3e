#pragma once
// Compiling a plan's kernels for the CPU target: all of them rendered into one C++ translation
// unit, compiled by the system compiler into one shared object, kept in memory and on disk
// under EMBER_CACHE_DIR/cpu (keyed by the source, the compiler's version, its flags and the
// CPU; written under a temporary name and renamed; its checksum verified before it is loaded).
#include <memory>
#include <vector>

#include "jit/codegen/kernel.h"
#include "runtime/backend.h"

namespace ember::jit {

// One loaded kernel per description, in order (nullptr for host kernels).
std::vector<std::shared_ptr<runtime::Kernel>> get_cpu_kernels(const std::vector<KernelDesc>& descs,
                                                              runtime::Backend& backend);

}  // namespace ember::jit
