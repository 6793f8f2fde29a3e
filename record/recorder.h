#pragma once
// Saving and loading whole records in any format, chosen by the options or the file's extension.
#include <string>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

// Writes to a temporary file next to `path` and renames it over `path` once complete.
void save(const Record& record, const std::string& path, const SaveOptions& options = {});
// Throws ember::Error naming the file and the problem for anything missing, truncated or corrupt.
Record load(const std::string& path, const LoadOptions& options = {});

}  // namespace ember::record
