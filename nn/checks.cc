#include "nn/checks.h"

namespace ember::nn::detail {

void throw_layer_error(const std::string& layer, const std::string& message) {
  throw Error(layer + ": " + message);
}

void check_min_rank(const char* layer, const RawTensor& x, int min_rank, const char* layout) {
  if (x.rank() < min_rank) {
    throw_layer_error(layer, "expects an input of rank " + std::to_string(min_rank) + " or more (" +
                                 layout + "), got " + x.type().to_string());
  }
}

void check_dim_size(const char* layer, const RawTensor& x, int64_t dim, int64_t expected,
                    const char* what) {
  int64_t d = dim < 0 ? dim + x.rank() : dim;
  if (d < 0 || d >= x.rank() || x.shape()[static_cast<int>(d)] != expected) {
    throw_layer_error(layer, "expects " + std::to_string(expected) + " " + what + " in dim " +
                                 std::to_string(dim) + ", got " + x.type().to_string());
  }
}

void check_positive(const char* config, const char* field, double value) {
  if (!(value > 0)) {
    throw_layer_error(config,
                      std::string(field) + " must be positive, got " + std::to_string(value));
  }
}

void check_range(const char* config, const char* field, double value, double lo, double hi) {
  if (!(value >= lo && value <= hi)) {
    throw_layer_error(config, std::string(field) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], got " + std::to_string(value));
  }
}

}  // namespace ember::nn::detail
