#pragma once
// Safetensors (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length,
// a JSON header {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}}
// and the tensors' bytes, back to back. Files written here load with the `safetensors` Python
// package and the other way round. ParamIds and entry kinds travel in __metadata__
// ("ember.ids", "ember.kinds": JSON objects by path); other tools ignore them.
#include <string>

#include "record/options.h"
#include "record/record.h"

namespace ember::record {

void write_safetensors(const Record& record, const std::string& path, const SaveOptions& options);
// Maps the file; tensors point into the mapping. Dtypes Ember lacks (I8, U16, F8_*, ...) are an
// error naming the tensor.
Record read_safetensors(const std::string& path, const LoadOptions& options);

}  // namespace ember::record
