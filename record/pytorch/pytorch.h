#pragma once
// PyTorch .pt/.pth import: the zip container torch.save writes (data.pkl, data/<storage key>,
// byteorder) read through libzip, its pickle through the restricted unpickler, and the state
// dict's tensors gathered into a record. Nested dicts flatten to dotted paths
// ({"model": {"fc.weight": ...}} gives "model.fc.weight"); lists index by position; numbers and
// strings go to the metadata as "pytorch.<path>"; strided and offset views are copied dense.
#include <string>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

// Throws ember::Error naming the file for the legacy (non-zip) format, anything the unpickler
// refuses, big-endian data, and storages or views that do not fit their data.
Record read_pytorch(const std::string& path, const LoadOptions& options);

}  // namespace ember::record
