// The loss ops: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (with its log-probability
// output), on [N, C, d1, ...] scores and [N, d1, ...] class indices.
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

// The loss of log-probabilities `logp` for `target`, reduced as the node asks.
Value nll(NodeContext& c, const RawTensor& logp, const RawTensor& target,
          std::optional<RawTensor> weight) {
  RawTensor t = ops::cast(target, DType::I64);
  RawTensor keep = ops::full(t.shape(), Scalar(true), DType::Bool, t.device());
  if (c.has_attr("ignore_index")) {
    keep = bin(BinaryFn::Ne, t, static_cast<double>(c.attr_int("ignore_index", 0)));
    t = where(keep, t, scalar_like(t, 0));  // ignored targets read class 0, weighted 0
  }
  RawTensor picked = ops::squeeze(ops::gather(logp, 1, ops::unsqueeze_dim(t, 1)), 1);
  RawTensor w = ops::cast(keep, logp.dtype());
  if (weight) {
    RawTensor per = ops::select(*weight, 0, ops::reshape(t, {t.shape().numel()}));
    w = bin(BinaryFn::Mul, w, ops::reshape(per, t.shape().vector()));
  }
  RawTensor loss = bin(BinaryFn::Mul, ops::unary(ir::UnaryFn::Neg, picked), w);
  std::string reduction = c.attr_string("reduction", "mean");
  if (reduction == "none") return Value::tensor(loss);
  RawTensor sum = ops::reduce_all(ir::ReduceFn::Sum, loss);
  if (reduction == "sum") return Value::tensor(sum, 0);
  return Value::tensor(bin(BinaryFn::Div, sum, ops::reduce_all(ir::ReduceFn::Sum, w)), 0);
}

std::optional<RawTensor> weight_input(NodeContext& c) {
  if (!c.has_input(2)) return std::nullopt;
  return c.tensor(2);
}

std::string check_reduction(const ::onnx::NodeProto& n, int) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "reduction" && a.s() != "none" && a.s() != "sum" && a.s() != "mean") {
      return "reduction '" + a.s() + "' not supported";
    }
  }
  return "";
}

Outputs nll_loss(NodeContext& c) { return {nll(c, c.tensor(0), c.tensor(1), weight_input(c))}; }

Outputs softmax_cross_entropy(NodeContext& c) {
  RawTensor logp = ops::log_softmax(c.tensor(0), 1);
  Outputs out{nll(c, logp, c.tensor(1), weight_input(c))};
  if (c.has_output(1)) out.push_back(Value::tensor(logp));
  return out;
}

}  // namespace

void register_loss(Registry& r) {
  r.add("NegativeLogLikelihoodLoss", {nll_loss, {"ignore_index", "reduction"}, check_reduction});
  r.add("SoftmaxCrossEntropyLoss",
        {softmax_cross_entropy, {"ignore_index", "reduction"}, check_reduction});
}

}  // namespace ember::onnx_import
