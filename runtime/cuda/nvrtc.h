#pragma once
// NVRTC as the jit sees it (no CUDA headers needed to include this).
#include <string>
#include <vector>

namespace ember::runtime::cuda {

// Compiles CUDA C++ for `arch` (e.g. "sm_90a"): a CUBIN, or PTX when `ptx` is set. Throws
// ember::Error with the compiler log on failure, or when NVRTC is unavailable.
std::vector<char> nvrtc_compile(const std::string& source, const std::string& name,
                                const std::string& arch, bool ptx);
// "13.0", or "none" when NVRTC cannot be loaded.
std::string nvrtc_version();

}  // namespace ember::runtime::cuda
