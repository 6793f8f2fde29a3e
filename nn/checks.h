#pragma once
// Input checks shared by the layers. Each throws ember::Error naming the layer and the shape it
// was given, before anything is recorded.
#include <cstdint>
#include <string>

#include "frontend/tensor.h"

namespace ember::nn::detail {

[[noreturn]] void throw_layer_error(const std::string& layer, const std::string& message);

// Throws unless `shape` has rank >= min_rank.
void check_min_rank(const char* layer, const RawTensor& x, int min_rank, const char* layout);
// Throws unless dim `dim` (negative counts from the end) of x has size `expected`.
void check_dim_size(const char* layer, const RawTensor& x, int64_t dim, int64_t expected,
                    const char* what);
// Throws unless value > 0 (a config field).
void check_positive(const char* config, const char* field, double value);
// Throws unless lo <= value <= hi (a config field).
void check_range(const char* config, const char* field, double value, double lo, double hi);

}  // namespace ember::nn::detail
