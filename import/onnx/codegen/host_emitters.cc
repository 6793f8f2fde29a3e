// Host forms of the ops that shape arithmetic uses (the values known on the host in the
// importer: shapes, dims, small constants): they become C++ expressions of forward, folded
// here when every operand is a literal. An emitter returns no output to decline (the inputs are
// then uploaded and the device form runs).
#include <algorithm>
#include <cmath>

#include "import/onnx/codegen/emitters.h"

namespace ember::onnx_import::codegen {
namespace {

using Outputs = std::vector<Sym>;

bool literal_int(const std::string& e) {
  return is_literal(e) && e.find_first_of(".e") == std::string::npos;
}

// a op b for one element pair, folded when both are integer literals.
std::string combine(const std::string& op, const std::string& a, const std::string& b, bool fl) {
  if (!fl && literal_int(a) && literal_int(b) && op != "pow") {
    int64_t x = std::stoll(a), y = std::stoll(b);
    if (op == "+") return std::to_string(x + y);
    if (op == "-") return std::to_string(x - y);
    if (op == "*") return std::to_string(x * y);
    if (op == "/" && y != 0) return std::to_string(x / y);
  }
  if (op == "pow") {
    std::string p = "std::pow(" + a + ", " + b + ")";
    return fl ? p : "static_cast<int64_t>(" + p + ")";
  }
  if (op == "max" || op == "min") return "std::" + op + "(" + a + ", " + b + ")";
  return "(" + a + " " + op + " " + b + ")";
}

// Elementwise on host values of rank <= 1 (a single element broadcasts).
EmitEntry arithmetic(const std::string& op) {
  return {nullptr, [op](EmitContext& c) {
            const Sym &a = c.in(0), &b = c.in(1);
            size_t n = std::max(a.elems.size(), b.elems.size());
            if ((a.elems.size() != n && a.elems.size() != 1) ||
                (b.elems.size() != n && b.elems.size() != 1) || a.dtype != b.dtype) {
              return Outputs{};
            }
            std::vector<std::string> out;
            for (size_t i = 0; i < n; ++i) {
              out.push_back(combine(op, a.elems[a.elems.size() == 1 ? 0 : i],
                                    b.elems[b.elems.size() == 1 ? 0 : i], is_float(a.dtype)));
            }
            return Outputs{c.host_value(out, std::max(a.rank, b.rank), a.dtype)};
          }};
}

Outputs cast(EmitContext& c) {
  auto to = to_dtype(static_cast<int32_t>(c.attrs().attr_int("to", 0)));
  const Sym& x = c.in(0);
  if (!to || is_bool(*to) || is_bool(x.dtype)) return {};
  std::vector<std::string> out = x.elems;
  if (is_float(*to) != is_float(x.dtype)) {
    for (auto& e : out)
      e = std::string("static_cast<") + (is_float(*to) ? "double" : "int64_t") + ">(" + e + ")";
  }
  return {c.host_value(out, x.rank, *to)};
}

// Gather of constant indices from a rank-1 host value (a dim of a shape).
Outputs gather(EmitContext& c) {
  const Sym& x = c.in(0);
  if (x.rank != 1 || c.attrs().attr_int("axis", 0) != 0) return {};
  auto n = static_cast<int64_t>(x.elems.size());
  std::vector<std::string> out;
  for (int64_t i : c.const_ints(1)) {
    if (i < -n || i >= n) c.unsupported("index " + std::to_string(i) + " out of range");
    out.push_back(x.elems[i < 0 ? i + n : i]);
  }
  return {c.host_value(out, c.rank(1), x.dtype, false)};
}

Outputs unsqueeze(EmitContext& c) {
  const Sym& x = c.in(0);
  std::vector<int64_t> axes = c.has_input(1) ? c.const_ints(1) : c.attrs().attr_ints("axes");
  if (x.rank != 0 || axes.size() != 1 || (axes[0] != 0 && axes[0] != -1)) return {};
  return {c.host_value(x.elems, 1, x.dtype, false)};
}

Outputs squeeze(EmitContext& c) {
  const Sym& x = c.in(0);
  if (x.rank != 1 || x.elems.size() != 1) return {};
  return {c.host_value(x.elems, 0, x.dtype, false)};
}

Outputs concat(EmitContext& c) {
  std::vector<std::string> out;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Sym& x = c.in(i);
    if (x.rank != 1 || x.dtype != c.in(0).dtype) return {};
    out.insert(out.end(), x.elems.begin(), x.elems.end());
  }
  return {c.host_value(out, 1, c.in(0).dtype, false)};
}

// Slice of a rank-1 host value with constant bounds.
Outputs slice(EmitContext& c) {
  const Sym& x = c.in(0);
  if (x.rank != 1) return {};
  std::vector<int64_t> starts = c.const_ints(1), ends = c.const_ints(2);
  std::vector<int64_t> steps = c.has_input(4) ? c.const_ints(4) : std::vector<int64_t>{1};
  if (starts.size() != 1 || ends.size() != 1 || steps[0] <= 0) return {};
  auto n = static_cast<int64_t>(x.elems.size());
  int64_t s = starts[0] < 0 ? starts[0] + n : starts[0], e = ends[0] < 0 ? ends[0] + n : ends[0];
  s = std::clamp<int64_t>(s, 0, n);
  e = std::clamp<int64_t>(e, 0, n);
  std::vector<std::string> out;
  for (int64_t i = s; i < e; i += steps[0]) out.push_back(x.elems[i]);
  return {c.host_value(out, 1, x.dtype, false)};
}

Outputs neg(EmitContext& c) {
  std::vector<std::string> out;
  for (const auto& e : c.in(0).elems)
    out.push_back(literal_int(e) && e[0] != '-' ? "-" + e : "(-" + e + ")");
  return {c.host_value(out, c.rank(0), c.in(0).dtype)};
}

}  // namespace

void add_host_emitters(std::map<std::string, EmitEntry>& t) {
  const std::pair<const char*, const char*> ops[] = {
      {"Add", "+"},   {"Sub", "-"},   {"Mul", "*"},   {"Div", "/"},
      {"Pow", "pow"}, {"Max", "max"}, {"Min", "min"},
  };
  for (const auto& [op, sym] : ops) {
    // Max and Min are variadic: the host form takes the two-input case.
    OpEmitter host = arithmetic(sym).host;
    t[op].host = [host](EmitContext& c) { return c.num_inputs() == 2 ? host(c) : Outputs{}; };
  }
  t["Cast"].host = cast;
  t["Gather"].host = gather;
  t["Unsqueeze"].host = unsqueeze;
  t["Squeeze"].host = squeeze;
  t["Concat"].host = concat;
  t["Slice"].host = slice;
  t["Neg"].host = neg;
}

}  // namespace ember::onnx_import::codegen
