#pragma once
// How records are saved and loaded: the format (or the file's extension), precision, compression,
// key remapping, adapters for foreign layouts and how strict a load is.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/device.h"

namespace ember::record {

enum class Format {
  from_extension,  // .ember native, .json pretty JSON, .safetensors, .pt/.pth PyTorch
  native,
  json,
  safetensors,
  pytorch,  // read only
};
const char* format_name(Format f);
// The format of `path` (its extension when `requested` is from_extension); throws ember::Error
// naming the file for an unknown extension.
Format resolve_format(const std::string& path, Format requested);

// Burn's precision settings: full keeps every dtype; half stores f32/f64 tensors as f16 (bf16)
// except those whose values f16 (bf16) cannot hold (beyond its range, or mostly below its
// smallest normal: small batch-norm variances, Adam's second moments), which stay f32. Loading
// converts back to each tensor's dtype (f32 for optimizer state).
enum class Precision { full, half, bf16 };

struct SaveOptions {
  Format format = Format::from_extension;
  Precision precision = Precision::full;
  bool compress = false;  // zlib, per tensor (native format only)
  bool durable = true;    // fsync before the rename (survives a power loss, not only a crash)
  std::map<std::string, std::string> metadata;
};

// Layout conversions between another framework's modules and Ember's.
enum class Adapter {
  none,
  // PyTorch: Linear weights are [out, in] there ([in, out] here); norm layers' gamma/beta are
  // weight/bias there. Chosen by default for .pt files.
  pytorch,
};

struct KeyRemap {
  std::string pattern;      // ECMAScript regular expression, searched for in the key
  std::string replacement;  // $1... refer to groups; empty: drop the keys that match
};

struct LoadOptions {
  Format format = Format::from_extension;
  // Applied in order to every key of the file before it is matched to the module's paths.
  std::vector<KeyRemap> remap;
  std::optional<Adapter> adapter;  // default: pytorch for .pt files, none otherwise
  // Tensors the file lacks keep the module's values (still listed in the report); without it
  // a missing tensor is an error. Tensors of the file the module lacks are reported either way
  // and are an error unless allow_partial or allow_unused.
  bool allow_partial = false;
  bool allow_unused = false;
  bool verify_checksums = true;  // native format
  std::optional<Device> device;  // default: where each of the module's tensors is
};

}  // namespace ember::record
