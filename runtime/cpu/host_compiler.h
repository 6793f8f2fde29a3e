#pragma once
// The system C++ compiler the CPU target compiles kernels with: the one CMake found at configure
// time, or $EMBER_CXX. Probed once (its --version); without a working one the CPU device runs
// the reference executor.
#include <string>
#include <vector>

namespace ember::runtime::cpu {

struct HostCompiler {
  std::string path;
  std::string version;  // the first line of `path --version`
  std::string flags;    // what every kernel library is compiled with
  std::string machine;  // the CPU model (kernels are compiled for this machine's instructions)
};

// The compiler, or nullptr where none works; `why` says why not.
const HostCompiler* host_compiler(std::string* why = nullptr);

// Compiles C++ `source` into the shared object `output`; throws ember::Error with the
// compiler's messages (the kernel named `what`) on failure.
void compile_shared_object(const std::string& source, const std::string& output,
                           const std::string& what);
// The same for a library made of several translation units: each compiled on a thread of its
// own (the compiler is single-threaded), then linked into `output`.
void compile_shared_object(const std::vector<std::string>& sources, const std::string& output,
                           const std::string& what);

// dlopen's the shared object for as long as the process runs; the address of `symbol` in it.
// Throws ember::Error when the library or the symbol cannot be loaded.
void* open_library(const std::string& path);
void* library_symbol(void* library, const std::string& symbol);

}  // namespace ember::runtime::cpu
