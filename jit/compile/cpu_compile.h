#pragma once
// Compiling a plan's kernels for the CPU target: all of them rendered into one C++ translation
// unit, compiled by the system compiler into one shared object, kept in memory and on disk
// under EMBER_CACHE_DIR/cpu (keyed by the source, the compiler's version, its flags and the
// CPU; written under a temporary name and renamed; its checksum verified before it is loaded).
#include <memory>
#include <vector>

#include "ir/error.h"
#include "jit/codegen/kernel.h"
#include "runtime/backend.h"

namespace ember::jit {

// Thrown instead of compiling a plan whose kernels would take the compiler too long (a kernel of
// more than kMaxCpuKernelExprs expressions: optimisation time grows faster than the function);
// the executor runs such a graph on the reference executor instead.
class CompileDeclined : public Error {
 public:
  using Error::Error;
};
inline constexpr size_t kMaxCpuKernelExprs = 8000;

// One loaded kernel per description, in order (nullptr for host kernels).
std::vector<std::shared_ptr<runtime::Kernel>> get_cpu_kernels(const std::vector<KernelDesc>& descs,
                                                              runtime::Backend& backend);

// Forgets the libraries loaded in this process (they stay mapped): the next plan loads its
// library from the disk cache again (tests and benchmarks of warm starts).
void forget_cpu_libraries();

}  // namespace ember::jit
