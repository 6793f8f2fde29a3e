// Activations and the softmax family.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;
using ir::UnaryFn;

RawTensor elu(const RawTensor& x, double alpha) {
  RawTensor neg = bin(BinaryFn::Mul, bin(BinaryFn::Sub, un(UnaryFn::Exp, x), 1.0), alpha);
  return where(bin(BinaryFn::Gt, x, 0.0), x, neg);
}

RawTensor selu(const RawTensor& x, NodeContext& c) {
  double alpha = c.attr_float("alpha", 1.67326319217681884765625f);
  double gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  return bin(BinaryFn::Mul, elu(x, alpha), gamma);
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
RawTensor celu(const RawTensor& x, NodeContext& c) {
  double alpha = c.attr_float("alpha", 1.0f);
  RawTensor e = bin(BinaryFn::Mul,
                    bin(BinaryFn::Sub, un(UnaryFn::Exp, bin(BinaryFn::Div, x, alpha)), 1.0), alpha);
  return bin(BinaryFn::Add, bin(BinaryFn::Max, x, 0.0), bin(BinaryFn::Min, e, 0.0));
}

RawTensor shrink(const RawTensor& x, NodeContext& c) {
  double lambd = c.attr_float("lambd", 0.5f), bias = c.attr_float("bias", 0.0f);
  RawTensor zero = scalar_like(x, 0);
  RawTensor y = where(bin(BinaryFn::Gt, x, lambd), bin(BinaryFn::Sub, x, bias), zero);
  return where(bin(BinaryFn::Lt, x, -lambd), bin(BinaryFn::Add, x, bias), y);
}

// Softmax-like ops: opset 13 normalises along `axis`; before, over all dims from `axis` on
// (the input read as a 2-D matrix).
Outputs softmax_like(NodeContext& c, RawTensor (*f)(const RawTensor&, int64_t)) {
  const RawTensor& x = c.tensor(0);
  int rank = std::max(c.input(0).rank(), 1);
  if (c.opset() >= 13) {
    return same_rank(c, f(x, c.axis(c.attr_int("axis", -1), rank)));
  }
  int64_t axis = c.axis(c.attr_int("axis", 1), rank);
  std::vector<int64_t> dims = x.shape().vector();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  RawTensor y = f(ops::reshape(x, {outer, -1}), 1);
  return same_rank(c, ops::reshape(y, dims));
}

RawTensor hardmax(const RawTensor& x, int64_t axis) {
  RawTensor idx = ops::reduce_dim(ir::ReduceFn::ArgMax, x, axis);
  int64_t n = x.shape()[static_cast<int>(axis)];
  std::vector<int64_t> dims(x.rank(), 1);
  dims[axis] = n;
  RawTensor iota = ops::reshape(ops::arange(0, n, 1, idx.dtype(), x.device()), dims);
  return ops::cast(bin(BinaryFn::Eq, iota, idx), x.dtype());
}

RawTensor prelu(NodeContext& c) {
  RawTensor x = c.tensor(0), slope = c.tensor(1);
  return where(bin(BinaryFn::Lt, x, 0.0), bin(BinaryFn::Mul, x, slope), x);
}

}  // namespace

void register_activation(Registry& r) {
  r.add("Relu", unary_entry([](const RawTensor& x, NodeContext&) { return ops::relu(x); }));
  r.add("Sigmoid", unary_entry([](const RawTensor& x, NodeContext&) { return ops::sigmoid(x); }));
  r.add("LeakyRelu",
        unary_entry([](const RawTensor& x,
                       NodeContext& c) { return ops::leaky_relu(x, c.attr_float("alpha", 0.01f)); },
                    {"alpha"}));
  r.add("Elu", unary_entry([](const RawTensor& x,
                              NodeContext& c) { return elu(x, c.attr_float("alpha", 1.0f)); },
                           {"alpha"}));
  r.add("Selu", unary_entry(selu, {"alpha", "gamma"}));
  r.add("Celu", unary_entry(celu, {"alpha"}));
  r.add("Shrink", unary_entry(shrink, {"lambd", "bias"}));
  r.add("ThresholdedRelu", unary_entry(
                               [](const RawTensor& x, NodeContext& c) {
                                 double a = c.attr_float("alpha", 1.0f);
                                 return where(bin(BinaryFn::Gt, x, a), x, scalar_like(x, 0));
                               },
                               {"alpha"}));
  r.add("HardSigmoid", unary_entry(
                           [](const RawTensor& x, NodeContext& c) {
                             return ops::hard_sigmoid(x, c.attr_float("alpha", 0.2f),
                                                      c.attr_float("beta", 0.5f));
                           },
                           {"alpha", "beta"}));
  r.add("HardSwish", unary_entry([](const RawTensor& x, NodeContext&) {
          return bin(BinaryFn::Mul, x, ops::hard_sigmoid(x, 1.0 / 6.0, 0.5));
        }));
  r.add("Softplus",
        unary_entry([](const RawTensor& x, NodeContext&) { return ops::softplus(x, 1.0); }));
  r.add("Softsign", unary_entry([](const RawTensor& x, NodeContext&) {
          return bin(BinaryFn::Div, x, bin(BinaryFn::Add, un(UnaryFn::Abs, x), 1.0));
        }));
  r.add("Mish", unary_entry([](const RawTensor& x, NodeContext&) { return ops::mish(x); }));
  r.add("PRelu",
        {[](NodeContext& c) { return Outputs{Value::tensor(prelu(c), max_rank(c))}; }, {}});
  r.add("Softmax", {[](NodeContext& c) { return softmax_like(c, ops::softmax); }, {"axis"}});
  r.add("LogSoftmax", {[](NodeContext& c) { return softmax_like(c, ops::log_softmax); }, {"axis"}});
  r.add("Hardmax", {[](NodeContext& c) { return softmax_like(c, hardmax); }, {"axis"}});
}

}  // namespace ember::onnx_import
