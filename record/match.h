#pragma once
// Matching a record's tensors to the tensors a model (or optimizer) expects: key remapping by
// regular expressions, adapters for other frameworks' layouts, and a load report of what was
// missing, unused or of the wrong shape, whose error message says how to fix it.
#include <optional>
#include <string>
#include <vector>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

// A tensor the loader wants, as the module's visitor sees it.
struct Target {
  std::string path;    // dotted path in the module ("layers.0.weight")
  std::string module;  // name of the module owning the field ("Linear", "BatchNorm")
  std::string field;   // the field's name ("weight", "gamma")
  Shape shape;
};

struct Mismatch {
  std::string path;
  std::string key;  // the file's key (after remapping)
  Shape file_shape, expected_shape;
  std::string hint;
};

struct LoadReport {
  std::vector<std::string> loaded;   // target paths given a tensor
  std::vector<std::string> missing;  // target paths the file lacks
  std::vector<std::string> unused;   // file keys (after remapping) no target took
  std::vector<Mismatch> mismatched;
  bool complete() const { return missing.empty() && unused.empty() && mismatched.empty(); }
  std::string to_string() const;
};

// Applies the remapping rules to every key, in order (std::regex_replace: each rule replaces
// every match); a rule with an empty replacement drops the keys it matches. Throws ember::Error
// naming `file` for a bad pattern or two keys that map to one.
Record remap_keys(const std::string& file, Record record, const std::vector<KeyRemap>& rules);

// The record's tensor for each target (adapted to Ember's layout; nullopt when missing or
// mismatched), filling `report`. Throws ember::Error naming `file`, listing the problems and how to
// fix them, when the options do not allow what the report found.
std::vector<std::optional<Entry>> match(const std::string& file, const Record& record,
                                        const std::vector<Target>& targets,
                                        const LoadOptions& options, LoadReport& report);

// Transposes a 2-D entry ([a, b] -> [b, a]).
Entry transpose_2d(const Entry& e);

}  // namespace ember::record
