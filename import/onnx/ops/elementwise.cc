// Elementwise math, comparisons, logic, Where, Cast and the variadic Min/Max/Sum/Mean.
#include <numbers>

#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

Outputs binary_node(NodeContext& c, BinaryFn fn) {
  RawTensor a = c.tensor(0), b = c.tensor(1);
  return {Value::tensor(bin(fn, a, b), max_rank(c))};
}

// C's fmod (the dividend's sign) from Ember's remainder, which takes the divisor's sign like
// Python's % (ONNX's fmod = 0).
RawTensor trunc_mod(const RawTensor& a, const RawTensor& b) {
  RawTensor r = bin(BinaryFn::Rem, a, b);
  RawTensor zero = scalar_like(r, 0);
  RawTensor fix = bin(BinaryFn::LogicalAnd, bin(BinaryFn::Ne, r, zero),
                      bin(BinaryFn::Ne, bin(BinaryFn::Lt, r, zero), bin(BinaryFn::Lt, a, zero)));
  return where(fix, bin(BinaryFn::Sub, r, b), r);
}

Outputs variadic(NodeContext& c, BinaryFn fn, bool mean) {
  RawTensor acc = c.tensor(0);
  for (int i = 1; i < c.num_inputs(); ++i) acc = bin(fn, acc, c.tensor(i));
  if (mean) acc = bin(BinaryFn::Div, acc, static_cast<double>(c.num_inputs()));
  // A single input is returned as is: broadcast with itself for the node's output shape.
  return {Value::tensor(acc, max_rank(c))};
}

RawTensor is_inf(const RawTensor& x, NodeContext& c) {
  RawTensor inf = un(UnaryFn::IsInf, x);
  bool neg = c.attr_int("detect_negative", 1), pos = c.attr_int("detect_positive", 1);
  if (neg && pos) return inf;
  RawTensor sign = bin(pos ? BinaryFn::Gt : BinaryFn::Lt, x, 0.0);
  if (!neg && !pos) return bin(BinaryFn::LogicalAnd, inf, un(UnaryFn::LogicalNot, inf));
  return bin(BinaryFn::LogicalAnd, inf, sign);
}

std::string check_cast(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "to" && !to_dtype(static_cast<int32_t>(a.i()))) {
      return "cast to " + onnx_type_name(static_cast<int32_t>(a.i())) + ", which Ember lacks";
    }
  }
  return "";
}

Outputs clip(NodeContext& c) {
  RawTensor x = c.tensor(0);
  // Opset 11 moved min and max from attributes to optional inputs.
  if (c.has_input(1)) x = bin(BinaryFn::Max, x, c.tensor(1));
  if (c.has_input(2)) x = bin(BinaryFn::Min, x, c.tensor(2));
  if (c.has_attr("min")) x = bin(BinaryFn::Max, x, c.attr_float("min", 0));
  if (c.has_attr("max")) x = bin(BinaryFn::Min, x, c.attr_float("max", 0));
  return same_rank(c, x);
}

// The inverse hyperbolic functions from logarithms and square roots.
RawTensor asinh(const RawTensor& x, NodeContext&) {
  RawTensor r = un(UnaryFn::Sqrt, bin(BinaryFn::Add, bin(BinaryFn::Mul, x, x), 1.0));
  return un(UnaryFn::Log, bin(BinaryFn::Add, x, r));
}
RawTensor acosh(const RawTensor& x, NodeContext&) {
  RawTensor r = un(UnaryFn::Sqrt, bin(BinaryFn::Sub, bin(BinaryFn::Mul, x, x), 1.0));
  return un(UnaryFn::Log, bin(BinaryFn::Add, x, r));
}
RawTensor atanh(const RawTensor& x, NodeContext&) {
  RawTensor q = bin(BinaryFn::Div, bin(BinaryFn::Add, scalar_like(x, 1), x),
                    bin(BinaryFn::Sub, scalar_like(x, 1), x));
  return bin(BinaryFn::Mul, un(UnaryFn::Log, q), 0.5);
}

// atan from its series, with no primitive to lower to: |x| > 1 maps to pi/2 - atan(1/|x|), and
// two halvings (atan x = 2 atan(x / (1 + sqrt(1 + x^2)))) bring |x| below tan(pi/16) ~ 0.199,
// where the odd Taylor terms up to x^15 leave an error below 1e-12.
RawTensor atan(const RawTensor& x, NodeContext&) {
  RawTensor a = un(UnaryFn::Abs, x);
  RawTensor big = bin(BinaryFn::Gt, a, 1.0);
  RawTensor t = where(big, un(UnaryFn::Recip, a), a);
  for (int i = 0; i < 2; ++i) {
    RawTensor r = un(UnaryFn::Sqrt, bin(BinaryFn::Add, bin(BinaryFn::Mul, t, t), 1.0));
    t = bin(BinaryFn::Div, t, bin(BinaryFn::Add, r, 1.0));
  }
  RawTensor t2 = bin(BinaryFn::Mul, t, t);
  RawTensor sum = scalar_like(t, -1.0 / 15);
  for (int k = 13; k >= 1; k -= 2) {  // Horner in t^2 of 1 - t^2/3 + t^4/5 - ... - t^14/15
    double sign = ((k - 1) / 2) % 2 == 0 ? 1.0 : -1.0;
    sum = bin(BinaryFn::Add, bin(BinaryFn::Mul, sum, t2), sign / k);
  }
  RawTensor small = bin(BinaryFn::Mul, bin(BinaryFn::Mul, t, sum), 4.0);
  RawTensor y =
      where(big, bin(BinaryFn::Sub, scalar_like(small, std::numbers::pi / 2), small), small);
  return bin(BinaryFn::Mul, y, un(UnaryFn::Sign, x));
}

// asin x = atan(x / sqrt(1 - x^2)) (+-1 map to +-inf, whose atan is +-pi/2); acos = pi/2 - asin.
RawTensor asin(const RawTensor& x, NodeContext& c) {
  RawTensor r = un(UnaryFn::Sqrt, bin(BinaryFn::Sub, scalar_like(x, 1), bin(BinaryFn::Mul, x, x)));
  return atan(bin(BinaryFn::Div, x, r), c);
}
RawTensor acos(const RawTensor& x, NodeContext& c) {
  return bin(BinaryFn::Sub, scalar_like(x, std::numbers::pi / 2), asin(x, c));
}

void add_unary(Registry& r, const char* op, UnaryFn fn) {
  r.add(op, unary_entry([fn](const RawTensor& x, NodeContext&) { return un(fn, x); }));
}

void add_binary(Registry& r, const char* op, BinaryFn fn) {
  r.add(op, {[fn](NodeContext& c) { return binary_node(c, fn); }, {}});
}

}  // namespace

void register_elementwise(Registry& r) {
  const std::pair<const char*, UnaryFn> unary[] = {
      {"Neg", UnaryFn::Neg},     {"Abs", UnaryFn::Abs},          {"Exp", UnaryFn::Exp},
      {"Log", UnaryFn::Log},     {"Sqrt", UnaryFn::Sqrt},        {"Sin", UnaryFn::Sin},
      {"Cos", UnaryFn::Cos},     {"Tan", UnaryFn::Tan},          {"Tanh", UnaryFn::Tanh},
      {"Sinh", UnaryFn::Sinh},   {"Cosh", UnaryFn::Cosh},        {"Erf", UnaryFn::Erf},
      {"Floor", UnaryFn::Floor}, {"Ceil", UnaryFn::Ceil},        {"Round", UnaryFn::Round},
      {"Sign", UnaryFn::Sign},   {"Reciprocal", UnaryFn::Recip}, {"Not", UnaryFn::LogicalNot},
      {"IsNaN", UnaryFn::IsNan},
  };
  for (const auto& [op, fn] : unary) add_unary(r, op, fn);
  const std::pair<const char*, BinaryFn> binary[] = {
      {"Add", BinaryFn::Add},           {"Sub", BinaryFn::Sub},
      {"Mul", BinaryFn::Mul},           {"Div", BinaryFn::Div},
      {"Equal", BinaryFn::Eq},          {"Less", BinaryFn::Lt},
      {"Greater", BinaryFn::Gt},        {"LessOrEqual", BinaryFn::Le},
      {"GreaterOrEqual", BinaryFn::Ge}, {"And", BinaryFn::LogicalAnd},
      {"Or", BinaryFn::LogicalOr},      {"Xor", BinaryFn::Ne},
  };
  for (const auto& [op, fn] : binary) add_binary(r, op, fn);
  r.add("Asinh", unary_entry(asinh));
  r.add("Atan", unary_entry(atan));
  r.add("Asin", unary_entry(asin));
  r.add("Acos", unary_entry(acos));
  r.add("Acosh", unary_entry(acosh));
  r.add("Atanh", unary_entry(atanh));
  r.add("IsInf", unary_entry(is_inf, {"detect_negative", "detect_positive"}));
  r.add("Pow", {[](NodeContext& c) {
                  // The exponent may have another type than the base (opset 12).
                  RawTensor b = ops::cast(c.tensor(1), c.tensor(0).dtype());
                  return Outputs{Value::tensor(bin(BinaryFn::Pow, c.tensor(0), b), max_rank(c))};
                },
                {}});
  r.add("Mod", {[](NodeContext& c) {
                  RawTensor a = c.tensor(0), b = c.tensor(1);
                  RawTensor y = c.attr_int("fmod", 0) ? trunc_mod(a, b) : bin(BinaryFn::Rem, a, b);
                  return Outputs{Value::tensor(y, max_rank(c))};
                },
                {"fmod"}});
  r.add("BitShift", {[](NodeContext& c) {
                       bool left = c.attr_string("direction", "") == "LEFT";
                       return binary_node(c, left ? BinaryFn::Shl : BinaryFn::Shr);
                     },
                     {"direction"}});
  r.add("Max", {[](NodeContext& c) { return variadic(c, BinaryFn::Max, false); }, {}});
  r.add("Min", {[](NodeContext& c) { return variadic(c, BinaryFn::Min, false); }, {}});
  r.add("Sum", {[](NodeContext& c) { return variadic(c, BinaryFn::Add, false); }, {}});
  r.add("Mean", {[](NodeContext& c) { return variadic(c, BinaryFn::Add, true); }, {}});
  r.add("Where", {[](NodeContext& c) {
                    RawTensor y = where(c.tensor(0), c.tensor(1), c.tensor(2));
                    return Outputs{Value::tensor(y, max_rank(c))};
                  },
                  {}});
  r.add("Cast", {[](NodeContext& c) {
                   DType to = *to_dtype(static_cast<int32_t>(c.attr_int("to", 0)));
                   return same_rank(c, ops::cast(c.tensor(0), to));
                 },
                 {"to"},
                 check_cast});
  r.add("CastLike",
        {[](NodeContext& c) { return same_rank(c, ops::cast(c.tensor(0), c.input(1).dtype())); },
         {}});
  r.add("Clip", {clip, {"min", "max"}});
}

}  // namespace ember::onnx_import
