#pragma once
// EMBER_DUMP=ir,plan,kernels,binary,autotune,all selects what is printed; EMBER_DUMP_DIR sends each
// artefact to its own file instead of stderr. EMBER_LOG selects run-time logs the same way.
#include <string>

namespace ember::jit {

bool dump_enabled(const char* what);
// EMBER_LOG=kernels,flush selects what is logged as it runs (one topic or a comma list).
bool log_enabled(const char* what);
// Writes `text` to stderr, or to $EMBER_DUMP_DIR/<name> when that is set.
void dump(const char* what, const std::string& name, const std::string& text);

}  // namespace ember::jit
