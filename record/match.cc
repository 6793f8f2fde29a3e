#include "record/match.h"

#include <cstring>
#include <map>
#include <regex>
#include <sstream>

namespace ember::record {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string parent(const std::string& path) {
  auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot + 1);
}

bool is_norm(const std::string& module) { return ends_with(module, "Norm"); }

// The file keys that may hold `t`, best first.
std::vector<std::string> candidate_keys(const Target& t, Adapter adapter) {
  std::vector<std::string> keys = {t.path};
  if (adapter == Adapter::pytorch && is_norm(t.module)) {
    if (t.field == "gamma") keys.push_back(parent(t.path) + "weight");
    if (t.field == "beta") keys.push_back(parent(t.path) + "bias");
  }
  return keys;
}

bool is_linear_weight(const Target& t) {
  return t.module == "Linear" && t.field == "weight" && t.shape.rank() == 2;
}

std::string mismatch_hint(const Target& t, const Shape& file_shape, Adapter adapter) {
  if (t.shape.rank() == 2 && file_shape.rank() == 2 && file_shape[0] == t.shape[1] &&
      file_shape[1] == t.shape[0]) {
    if (is_linear_weight(t) && adapter != Adapter::pytorch) {
      return "this looks like a PyTorch Linear weight ([out, in]; Ember's is [in, out]): load "
             "with LoadOptions::adapter = Adapter::pytorch";
    }
    return "the file's tensor is the transpose of the module's";
  }
  return "the module was configured with other sizes than the saved one (check its config), or "
         "the key belongs to another tensor (fix it with LoadOptions::remap, or skip it with "
         "allow_partial)";
}

std::string list(const std::vector<std::string>& v, size_t max = 8) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max; ++i) out += (i ? ", '" : "'") + v[i] + "'";
  if (v.size() > max) out += ", ... (" + std::to_string(v.size()) + " in all)";
  return out;
}

}  // namespace

std::string LoadReport::to_string() const {
  std::ostringstream os;
  os << loaded.size() << " loaded";
  if (!missing.empty()) os << "; missing from the file: " << list(missing);
  if (!unused.empty()) os << "; in the file but not the module: " << list(unused);
  for (const Mismatch& m : mismatched) {
    os << "; shape mismatch at '" << m.path << "' (file key '" << m.key << "'): file "
       << m.file_shape.to_string() << ", module " << m.expected_shape.to_string() << ": " << m.hint;
  }
  return os.str();
}

Record remap_keys(const std::string& file, Record record, const std::vector<KeyRemap>& rules) {
  if (rules.empty()) return record;
  std::vector<std::regex> compiled;
  for (const KeyRemap& r : rules) {
    try {
      compiled.emplace_back(r.pattern);
    } catch (const std::regex_error& e) {
      throw Error("record: '" + file + "': bad remap pattern '" + r.pattern + "': " + e.what());
    }
  }
  Record out;
  out.metadata = std::move(record.metadata);
  std::map<std::string, std::string> seen;  // new key -> old key
  for (Entry& e : record.entries) {
    std::string key = e.path;
    for (size_t i = 0; i < rules.size() && !key.empty(); ++i) {
      if (rules[i].replacement.empty()) {
        if (std::regex_search(key, compiled[i])) key.clear();  // a rule that drops keys
      } else {
        key = std::regex_replace(key, compiled[i], rules[i].replacement);
      }
    }
    if (key.empty()) continue;
    if (auto [it, fresh] = seen.emplace(key, e.path); !fresh) {
      throw Error("record: '" + file + "': remapping sends both '" + it->second + "' and '" +
                  e.path + "' to '" + key + "'");
    }
    e.path = key;
    out.entries.push_back(std::move(e));
  }
  return out;
}

Entry transpose_2d(const Entry& e) {
  const int64_t rows = e.shape()[0], cols = e.shape()[1];
  const size_t size = dtype_size(e.dtype());
  TensorData out(e.dtype(), Shape{cols, rows});
  const std::byte* src = e.bytes().data();
  std::byte* dst = out.mutable_bytes().data();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      std::memcpy(dst + (c * rows + r) * size, src + (r * cols + c) * size, size);
    }
  }
  return Entry(e.path, std::move(out), e.id, e.kind);
}

std::vector<std::optional<Entry>> match(const std::string& file, const Record& record,
                                        const std::vector<Target>& targets,
                                        const LoadOptions& options, LoadReport& report) {
  const Adapter adapter = options.adapter.value_or(Adapter::none);
  std::map<std::string, const Entry*> by_key;
  for (const Entry& e : record.entries) by_key[e.path] = &e;
  std::map<std::string, bool> used;
  std::vector<std::optional<Entry>> out(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    const Entry* e = nullptr;
    for (const std::string& k : candidate_keys(t, adapter)) {
      if (auto it = by_key.find(k); it != by_key.end() && !used[k]) {
        e = it->second;
        break;
      }
    }
    if (!e) {
      report.missing.push_back(t.path);
      continue;
    }
    used[e->path] = true;
    Entry adapted = adapter == Adapter::pytorch && is_linear_weight(t) && e->shape().rank() == 2
                        ? transpose_2d(*e)
                        : *e;
    if (adapted.shape() != t.shape) {
      report.mismatched.push_back(
          {t.path, e->path, e->shape(), t.shape, mismatch_hint(t, e->shape(), adapter)});
      continue;
    }
    report.loaded.push_back(t.path);
    out[i] = std::move(adapted);
  }
  for (const Entry& e : record.entries) {
    if (!used[e.path]) report.unused.push_back(e.path);
  }
  const bool bad = !report.mismatched.empty() ||
                   (!report.missing.empty() && !options.allow_partial) ||
                   (!report.unused.empty() && !options.allow_partial && !options.allow_unused);
  if (bad) {
    std::string fix;
    if (!report.missing.empty() || !report.unused.empty()) {
      fix =
          " (rename keys with LoadOptions::remap; allow_partial keeps the module's values for "
          "missing tensors and ignores unused ones; allow_unused ignores unused ones only)";
    }
    throw Error("record: loading '" + file + "': " + report.to_string() + fix);
  }
  return out;
}

}  // namespace ember::record
