#pragma once
// Tensor display: the Burn-style block with data, shape, device, backend, kind and dtype.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "frontend/raw_tensor.h"

namespace ember {

struct PrintOptions {
  std::optional<int> precision;  // decimal places of floats; none: shortest exact form
  int64_t threshold = 1000;      // above this many elements, print only the edges
  int64_t edge_items = 3;        // items kept at each end of a summarized dim
};

void set_print_options(const PrintOptions& options);
PrintOptions print_options();

// `precision` overrides the global option for this call.
std::string format_tensor(const RawTensor& t, const char* kind, std::optional<int> precision);
// The precision a stream asks for with std::fixed (std::cout << std::fixed <<
// std::setprecision(2)).
std::optional<int> stream_precision(const std::ostream& os);

// Prints, for several tolerances, how many elements of a and b agree, marked [PASS] (all),
// [WARN] (>= 90%) or [FAIL]; returns the report.
std::string check_closeness(const RawTensor& a, const RawTensor& b, std::ostream* out);

}  // namespace ember
