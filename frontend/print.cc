#include "frontend/print.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ember {
namespace {

std::mutex g_options_mutex;
PrintOptions g_options;

std::string format_float(double v, DType t, std::optional<int> precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (precision) return absl::StrFormat("%.*f", *precision, v);
  char buf[64];
  // The shortest text that reads back to the same value in the tensor's own precision.
  auto res = t == DType::F64 ? std::to_chars(buf, buf + sizeof(buf), v)
                             : std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v));
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string format_element(const TensorData& d, int64_t i, std::optional<int> precision) {
  double v = d.value_at(i);
  if (is_float(d.dtype())) return format_float(v, d.dtype(), precision);
  if (is_bool(d.dtype())) return v != 0 ? "true" : "false";
  return absl::StrCat(static_cast<int64_t>(v));
}

// Appends dim `d` of the block starting at element `base`.
void format_dim(const TensorData& d, int dim, int64_t base, const std::vector<int64_t>& strides,
                bool summarize, int64_t edge, std::optional<int> precision, int indent,
                std::string& out) {
  const Shape& s = d.shape();
  int64_t n = s[dim];
  bool last = dim == s.rank() - 1;
  out += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * edge && i == edge) {
      out += last ? "..., " : absl::StrCat("...,\n", std::string(indent + 1, ' '));
      i = n - edge - 1;
      continue;
    }
    if (last) {
      out += format_element(d, base + i * strides[dim], precision);
    } else {
      format_dim(d, dim + 1, base + i * strides[dim], strides, summarize, edge, precision,
                 indent + 1, out);
    }
    if (i + 1 < n) out += last ? ", " : absl::StrCat(",\n", std::string(indent + 1, ' '));
  }
  out += "]";
}

}  // namespace

void set_print_options(const PrintOptions& options) {
  std::lock_guard lock(g_options_mutex);
  g_options = options;
}

PrintOptions print_options() {
  std::lock_guard lock(g_options_mutex);
  return g_options;
}

std::optional<int> stream_precision(const std::ostream& os) {
  if ((os.flags() & std::ios::floatfield) == std::ios::fixed) {
    return static_cast<int>(os.precision());
  }
  return std::nullopt;
}

std::string format_tensor(const RawTensor& t, const char* kind, std::optional<int> precision) {
  PrintOptions opts = print_options();
  if (!precision) precision = opts.precision;
  TensorData d = t.to_data();
  std::string data;
  if (d.shape().rank() == 0 || d.num_elements() == 0) {
    data = std::string(d.shape().rank(), '[') + std::string(d.shape().rank(), ']');
  } else {
    format_dim(d, 0, 0, d.shape().contiguous_strides(), d.num_elements() > opts.threshold,
               opts.edge_items, precision, 2, data);
  }
  std::string device = t.device().to_string();
  return absl::StrCat("Tensor {\n  data:\n  ", data, ",\n  shape: ", d.shape().to_string(),
                      ",\n  device: ", device, ",\n  backend: \"ember\",\n  kind: \"", kind,
                      "\",\n  dtype: \"", dtype_name(d.dtype()), "\",\n}");
}

std::string check_closeness(const RawTensor& a, const RawTensor& b, std::ostream* out) {
  TensorData da = a.to_data(), db = b.to_data();
  std::string report;
  if (da.shape() != db.shape()) {
    report = absl::StrCat("check_closeness: shapes differ: ", da.shape().to_string(), " and ",
                          db.shape().to_string(), "\n");
  } else {
    auto va = da.to_vec<double>(), vb = db.to_vec<double>();
    absl::StrAppend(&report, "Tensor closeness check results:\n");
    for (double eps : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}) {
      int64_t ok = 0;
      for (size_t i = 0; i < va.size(); ++i) ok += std::abs(va[i] - vb[i]) <= eps;
      double pct = va.empty() ? 100.0 : 100.0 * static_cast<double>(ok) / va.size();
      const char* tag = ok == static_cast<int64_t>(va.size()) ? "\x1b[32m[PASS]\x1b[0m"
                        : pct >= 90.0                         ? "\x1b[33m[WARN]\x1b[0m"
                                                              : "\x1b[31m[FAIL]\x1b[0m";
      absl::StrAppend(&report, absl::StrFormat("  epsilon %.0e: %6.2f%% within (%d/%d) %s\n", eps,
                                               pct, ok, va.size(), tag));
    }
  }
  if (out) *out << report;
  return report;
}

}  // namespace ember
