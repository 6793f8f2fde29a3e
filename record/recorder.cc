#include "record/recorder.h"

#include "record/json_recorder.h"
#include "record/native.h"
#include "record/pytorch/pytorch.h"
#include "record/safetensors.h"

namespace ember::record {

const char* format_name(Format f) {
  switch (f) {
    case Format::from_extension:
      return "from_extension";
    case Format::native:
      return "ember";
    case Format::json:
      return "json";
    case Format::safetensors:
      return "safetensors";
    case Format::pytorch:
      return "pytorch";
  }
  return "?";
}

Format resolve_format(const std::string& path, Format requested) {
  if (requested != Format::from_extension) return requested;
  auto ends = [&](const std::string& ext) {
    return path.size() >= ext.size() &&
           path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (ends(".ember")) return Format::native;
  if (ends(".json")) return Format::json;
  if (ends(".safetensors")) return Format::safetensors;
  if (ends(".pt") || ends(".pth")) return Format::pytorch;
  throw Error("record: cannot tell the format of '" + path +
              "' from its extension (.ember, .json, .safetensors, .pt, .pth); name it in the "
              "options' format");
}

void save(const Record& record, const std::string& path, const SaveOptions& options) {
  switch (resolve_format(path, options.format)) {
    case Format::native:
      return write_native(record, path, options);
    case Format::json:
      return write_json(record, path, options);
    case Format::safetensors:
      return write_safetensors(record, path, options);
    default:
      throw Error("record: saving '" + path + "': Ember writes .ember, .json and .safetensors, " +
                  "not PyTorch files");
  }
}

namespace {

Record load_format(const std::string& path, const LoadOptions& options) {
  switch (resolve_format(path, options.format)) {
    case Format::native:
      return read_native(path, options);
    case Format::json:
      return read_json(path, options);
    case Format::safetensors:
      return read_safetensors(path, options);
    case Format::pytorch:
      return read_pytorch(path, options);
    default:
      break;
  }
  throw Error("record: loading '" + path + "': no format");
}

}  // namespace

Record load(const std::string& path, const LoadOptions& options) {
  try {
    return load_format(path, options);
  } catch (const Error& e) {
    // Every reader names the file; a check deep inside one (a dtype's name) may not.
    if (std::string(e.what()).find(path) != std::string::npos) throw;
    throw Error("record: loading '" + path + "': " + e.what());
  }
}

}  // namespace ember::record
