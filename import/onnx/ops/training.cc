// The optimizer ops of the ai.onnx.preview.training domain: Adagrad, Momentum, Adam, each
// updating several tensors at once (inputs R, T, then the tensors, their gradients and their
// states; outputs the new tensors, then the new states), as ONNX defines them.
#include <cmath>

#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

RawTensor add(const RawTensor& a, const RawTensor& b) { return bin(BinaryFn::Add, a, b); }
RawTensor mul(const RawTensor& a, double s) { return bin(BinaryFn::Mul, a, s); }

// How many tensors the node updates: inputs = 2 + k * groups.
int64_t count(NodeContext& c, int groups) {
  int64_t k = (c.num_inputs() - 2) / groups;
  if (2 + k * groups != c.num_inputs())
    c.fail("inputs do not come in groups of " + std::to_string(groups));
  return k;
}

// g + norm_coefficient * x: the gradient with the L2 term.
RawTensor regularized(NodeContext& c, const RawTensor& x, const RawTensor& g) {
  double norm = c.attr_float("norm_coefficient", 0.0f);
  return norm == 0 ? g : add(g, mul(x, norm));
}

Outputs adagrad(NodeContext& c) {
  int64_t k = count(c, 3);
  double rate = c.scalar_input(0), t = c.scalar_input(1);
  double r = rate / (1 + t * c.attr_float("decay_factor", 0.0f));
  double eps = c.attr_float("epsilon", 0.0f);
  Outputs xs, hs;
  for (int64_t i = 0; i < k; ++i) {
    RawTensor x = c.tensor(2 + i), g = regularized(c, x, c.tensor(2 + k + i));
    RawTensor h = add(c.tensor(2 + 2 * k + i), bin(BinaryFn::Mul, g, g));
    RawTensor step = bin(BinaryFn::Div, mul(g, r), bin(BinaryFn::Add, un(UnaryFn::Sqrt, h), eps));
    xs.push_back(Value::tensor(bin(BinaryFn::Sub, x, step), c.input(2 + i).rank()));
    hs.push_back(Value::tensor(h, c.input(2 + i).rank()));
  }
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

Outputs momentum(NodeContext& c) {
  int64_t k = count(c, 3);
  double r = c.scalar_input(0), t = c.scalar_input(1);
  double alpha = c.attr_float("alpha", 0.0f), beta = t > 0 ? c.attr_float("beta", 0.0f) : 1.0;
  bool nesterov = c.attr_string("mode", "standard") == "nesterov";
  Outputs xs, vs;
  for (int64_t i = 0; i < k; ++i) {
    RawTensor x = c.tensor(2 + i), g = regularized(c, x, c.tensor(2 + k + i));
    RawTensor v = add(mul(c.tensor(2 + 2 * k + i), alpha), mul(g, beta));
    RawTensor dir = nesterov ? add(g, mul(v, alpha)) : v;
    xs.push_back(Value::tensor(bin(BinaryFn::Sub, x, mul(dir, r)), c.input(2 + i).rank()));
    vs.push_back(Value::tensor(v, c.input(2 + i).rank()));
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

Outputs adam(NodeContext& c) {
  int64_t k = count(c, 4);
  double r = c.scalar_input(0), t = c.scalar_input(1);
  double alpha = c.attr_float("alpha", 0.9f), beta = c.attr_float("beta", 0.999f);
  double eps = c.attr_float("epsilon", 1e-6f), post = c.attr_float("norm_coefficient_post", 0.0f);
  // The bias corrections fold into the rate once steps have been taken.
  if (t > 0) r = r * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t));
  Outputs xs, vs, hs;
  for (int64_t i = 0; i < k; ++i) {
    int rank = c.input(2 + i).rank();
    RawTensor x = c.tensor(2 + i), g = regularized(c, x, c.tensor(2 + k + i));
    RawTensor v = add(mul(c.tensor(2 + 2 * k + i), alpha), mul(g, 1 - alpha));
    RawTensor h = add(mul(c.tensor(2 + 3 * k + i), beta), mul(bin(BinaryFn::Mul, g, g), 1 - beta));
    RawTensor denom = bin(BinaryFn::Add, un(UnaryFn::Sqrt, h), eps);
    RawTensor nx = bin(BinaryFn::Sub, x, bin(BinaryFn::Div, mul(v, r), denom));
    if (post != 0) nx = mul(nx, 1 - post);
    xs.push_back(Value::tensor(nx, rank));
    vs.push_back(Value::tensor(v, rank));
    hs.push_back(Value::tensor(h, rank));
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

}  // namespace

void register_training(Registry& r) {
  const std::string d = "ai.onnx.preview.training.";
  r.add(d + "Adagrad", {adagrad, {"decay_factor", "epsilon", "norm_coefficient"}});
  r.add(d + "Momentum", {momentum, {"alpha", "beta", "mode", "norm_coefficient"}});
  r.add(d + "Adam",
        {adam, {"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"}});
}

}  // namespace ember::onnx_import
