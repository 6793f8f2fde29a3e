#pragma once
// The pretty JSON record (.json), for inspection and diffs: the same header fields as the native
// format and every tensor's values as a flat row-major list (floats printed to round-trip exactly;
// NaN and infinities as the strings "nan", "inf", "-inf").
#include <string>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

void write_json(const Record& record, const std::string& path, const SaveOptions& options);
Record read_json(const std::string& path, const LoadOptions& options);

}  // namespace ember::record
