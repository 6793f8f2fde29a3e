// Random ops: RandomNormal(Like), RandomUniform(Like), Bernoulli, drawn from Ember's generator
// (never folded at import: each run draws anew). The `seed` attribute is accepted and not used:
// Ember's counter-based generator cannot reproduce another generator's stream anyway.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

// The dtype attribute, or `fallback`.
DType dtype_attr(NodeContext& c, DType fallback) {
  if (!c.has_attr("dtype")) return fallback;
  auto dt = to_dtype(static_cast<int32_t>(c.attr_int("dtype", 1)));
  if (!dt) c.fail("dtype Ember lacks");
  return *dt;
}

Outputs draw(NodeContext& c, const std::vector<int64_t>& dims, DType dt, bool normal) {
  Distribution d =
      normal ? Distribution::normal(c.attr_float("mean", 0.0f), c.attr_float("scale", 1.0f))
             : Distribution::uniform(c.attr_float("low", 0.0f), c.attr_float("high", 1.0f));
  Shape s = dims.empty() ? Shape{1} : Shape(dims);
  // Drawn in f32 (the generator's precision) and cast to the requested type.
  RawTensor t = ops::random(s, d, DType::F32, c.device());
  return {Value::tensor(ops::cast(t, dt), static_cast<int>(dims.size()))};
}

Outputs random_like(NodeContext& c, bool normal) {
  return draw(c, c.input(0).dims(), dtype_attr(c, c.input(0).dtype()), normal);
}

Outputs random_shaped(NodeContext& c, bool normal) {
  return draw(c, c.attr_ints("shape"), dtype_attr(c, DType::F32), normal);
}

// Each element 1 with the probability the input gives.
Outputs bernoulli(NodeContext& c) {
  RawTensor p = c.tensor(0);
  RawTensor u = ops::random(p.shape(), Distribution::uniform(0, 1), DType::F32, p.device());
  RawTensor hit = bin(ir::BinaryFn::Lt, u, ops::cast(p, DType::F32));
  return same_rank(c, ops::cast(hit, dtype_attr(c, p.dtype())));
}

}  // namespace

void register_random(Registry& r) {
  const std::vector<std::string> normal = {"dtype", "mean", "scale", "seed"};
  const std::vector<std::string> uniform = {"dtype", "high", "low", "seed"};
  auto add = [&](const char* op, Converter f, std::vector<std::string> attrs) {
    r.add(op, {std::move(f), std::move(attrs), nullptr, /*foldable=*/false});
  };
  add(
      "RandomNormalLike", [](NodeContext& c) { return random_like(c, true); }, normal);
  add(
      "RandomUniformLike", [](NodeContext& c) { return random_like(c, false); }, uniform);
  std::vector<std::string> ns = normal, us = uniform;
  ns.push_back("shape");
  us.push_back("shape");
  add(
      "RandomNormal", [](NodeContext& c) { return random_shaped(c, true); }, ns);
  add(
      "RandomUniform", [](NodeContext& c) { return random_shaped(c, false); }, us);
  add("Bernoulli", bernoulli, {"dtype", "seed"});
}

}  // namespace ember::onnx_import
