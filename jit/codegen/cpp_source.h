#pragma once
// C++ for the CPU target: the third Dialect of the C-style renderer. A plan's kernels render into
// one translation unit (one shared object per plan); each kernel runs one "workgroup" of one
// thread per call, over a contiguous range of the grid or of the rows, so a thread pool splits
// a kernel by calling it with different workgroup numbers.
#include <string>
#include <vector>

#include "jit/codegen/kernel.h"

namespace ember::jit {

// What every compiled entry point is: P the parameter words, B the tensor buffers in binding
// order (then the error words where the kernel checks), wg this call's workgroup of nwg.
using CpuKernelFn = void (*)(const unsigned* P, void* const* B, unsigned wg, unsigned nwg);

// Whether row kernels write their large f32 outputs by non-temporal stores (kernels/row,
// SOp::StreamStore); EMBER_CPU_STREAM=0 turns it off (for comparisons).
bool cpu_stream_stores();

// The entry point of kernel `index` of a translation unit.
std::string cpp_entry(const KernelDesc& k, int index);

// The translation unit of `kernels` (descriptions of host kernels, KernelDesc::host, are
// skipped: nothing is rendered for them).
std::string render_cpp(const std::vector<const KernelDesc*>& kernels);
// One translation unit of the library: the kernels at the positions `which` of `kernels`
// (entries named by those positions, as render_cpp names them).
std::string render_cpp(const std::vector<const KernelDesc*>& kernels,
                       const std::vector<int>& which);

}  // namespace ember::jit
