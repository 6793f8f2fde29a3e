#include "import/onnx/codegen/emit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace ember::onnx_import::codegen {

const Sym& EmitContext::in(int i) const {
  if (!has_input(i)) unsupported("input " + std::to_string(i) + " is missing");
  return *inputs_[i];
}

bool EmitContext::all_host() const {
  for (int i = 0; i < num_inputs(); ++i) {
    if (has_input(i) && !inputs_[i]->host) return false;
  }
  return true;
}

std::string EmitContext::tensor(int i) {
  const Sym& s = in(i);
  if (!s.host) return s.var;
  // Host values are small (shapes, scalars): uploaded where a device op reads them, in their
  // ONNX element type, as the importer's Value::on does.
  std::string var = body_.fresh("v");
  const char* fn = is_float(s.dtype) ? "upload_floats" : "upload_ints";
  line("const ember::RawTensor " + var + " = " + fn + "(" + cpp_list(s.elems) + ", " +
       std::to_string(s.rank) + ", " + cpp_dtype(s.dtype) + ", device_);");
  return var;
}

const std::vector<std::string>& EmitContext::host(int i) const {
  const Sym& s = in(i);
  if (!s.host) {
    unsupported("input " + std::to_string(i) + " ('" + node_.input(i) +
                "') must be known on the host (a shape or a constant), but is computed on the "
                "device");
  }
  return s.elems;
}

std::vector<int64_t> EmitContext::const_ints(int i) const {
  std::vector<int64_t> out;
  for (const auto& e : host(i)) {
    if (!is_literal(e) || e.find('.') != std::string::npos) {
      unsupported("input " + std::to_string(i) + " ('" + node_.input(i) +
                  "') must be a constant, but depends on run-time dims");
    }
    out.push_back(std::stoll(e));
  }
  return out;
}

Sym EmitContext::device(const std::string& expr, int rank) {
  Sym s;
  s.var = body_.fresh("v");
  s.rank = rank;
  line("const ember::RawTensor " + s.var + " = " + expr + ";");
  return s;
}

Sym EmitContext::host_value(std::vector<std::string> elems, int rank, DType dtype, bool bind) {
  for (auto& e : elems) {
    if (!bind) break;
    bool simple = is_literal(e) || std::all_of(e.begin(), e.end(), [](char ch) {
                    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                  });
    if (simple) continue;
    std::string var = body_.fresh("h");
    line(std::string("const ") + (is_float(dtype) ? "double " : "int64_t ") + var + " = " + e +
         ";");
    e = var;
  }
  Sym s;
  s.host = true;
  s.rank = rank;
  s.dtype = dtype;
  s.elems = std::move(elems);
  return s;
}

std::string cpp_dtype(DType d) {
  if (d == DType::Bool) return "ember::DType::Bool";
  std::string name = dtype_name(d);
  for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return "ember::DType::" + name;
}

std::string cpp_ints(const std::vector<int64_t>& v) {
  std::vector<std::string> s;
  for (int64_t x : v) s.push_back(std::to_string(x));
  return cpp_list(s);
}

std::string cpp_list(const std::vector<std::string>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out + "}";
}

std::string cpp_float(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool is_literal(const std::string& expr) {
  if (expr.empty()) return false;
  size_t start = expr[0] == '-' ? 1 : 0;
  if (start == expr.size()) return false;
  for (size_t i = start; i < expr.size(); ++i) {
    char ch = expr[i];
    if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != '.' && ch != 'e' && ch != '-' &&
        ch != '+') {
      return false;
    }
  }
  return std::isdigit(static_cast<unsigned char>(expr[start]));
}

}  // namespace ember::onnx_import::codegen
