#pragma once
// Kernel compilation and caching: GLSL -> SPIR-V with shaderc, kept in memory by source hash and
// on disk under EMBER_CACHE_DIR (default $XDG_CACHE_HOME/ember, else ~/.cache/ember).
#include <memory>
#include <string>
#include <vector>

#include "jit/codegen/kernel.h"
#include "runtime/backend.h"

namespace ember::jit {

// Compiles GLSL compute source to SPIR-V; throws ember::Error with the compiler's messages.
std::vector<uint32_t> compile_glsl(const std::string& source, const std::string& name);

// The loaded kernel for `desc` on `backend`: from memory, from the disk cache (verified), or
// rendered and compiled now. Dumps kernels/binaries when EMBER_DUMP asks.
std::shared_ptr<runtime::Kernel> get_kernel(const KernelDesc& desc, runtime::Backend& backend);
// get_kernel for every description of a plan, in order, compiled on several threads
// (EMBER_COMPILE_THREADS, default the number of cores, at most 16): a first step's dozens of NVRTC
// or pipeline compiles take the time of the longest few instead of their sum. The first error (in
// description order) is rethrown once every thread has stopped.
std::vector<std::shared_ptr<runtime::Kernel>> get_kernels(const std::vector<KernelDesc>& descs,
                                                          runtime::Backend& backend);
// EMBER_COMPILE_THREADS: threads compiling a plan's kernels at once (1: one after another);
// default the cores, at most 16.
int compile_threads();

std::string cache_dir();
// Forgets the kernels loaded in this process (tests of the disk cache).
void clear_memory_cache();

}  // namespace ember::jit
