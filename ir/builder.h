#pragma once
// Appends validated, shape-inferred primitives to a graph. Every method checks its inputs and
// throws ember::Error (naming the op and the shapes) before anything is appended, so a failed
// call leaves the graph unchanged.
#include <vector>

#include "ir/graph.h"

namespace ember::ir {

// Names the user-facing op being lowered, so that an error raised by one of its primitives reads
// "softmax (sub): ..." rather than only naming the primitive. Nests; innermost wins.
class OpScope {
 public:
  explicit OpScope(const char* name);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  static const char* current();

 private:
  const char* previous_;
};

// "name" or "scope (name)" for messages.
std::string op_label(const char* primitive);

class Builder {
 public:
  explicit Builder(Graph& g) : g_(g) {}

  const TensorType& type(ValueId v) const { return g_.type(v); }

  ValueId input(int slot, const TensorType& t);
  ValueId full(const Shape& shape, DType dtype, Scalar value);
  ValueId iota(const Shape& shape, DType dtype, int axis);
  ValueId random(const Shape& shape, DType dtype, const RandomAttrs& attrs);
  ValueId unary(UnaryFn fn, ValueId x);
  ValueId binary(BinaryFn fn, ValueId a, ValueId b);
  ValueId where(ValueId cond, ValueId a, ValueId b);
  ValueId cast(ValueId x, DType dtype);
  ValueId reduce(ReduceFn fn, ValueId x, int axis, DType index_dtype = DType::I32);
  ValueId reshape(ValueId x, const Shape& shape);
  ValueId permute(ValueId x, const std::vector<int>& perm);
  ValueId expand(ValueId x, const Shape& shape);
  // counts[d] elements from starts[d] with steps[d] > 0.
  ValueId slice(ValueId x, const std::vector<int64_t>& starts, const std::vector<int64_t>& counts,
                const std::vector<int64_t>& steps);
  ValueId flip(ValueId x, const std::vector<int>& axes);
  ValueId pad(ValueId x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
              Scalar value);
  ValueId concat(const std::vector<ValueId>& xs, int axis);
  ValueId matmul(ValueId a, ValueId b);
  ValueId gather(ValueId x, int axis, ValueId index);
  ValueId scatter_add(ValueId x, int axis, ValueId index, ValueId values);
  ValueId sort(ValueId x, int axis, bool descending, bool indices, DType index_dtype = DType::I32);
  ValueId conv(ValueId x, ValueId w, const ConvAttrs& attrs);
  // x communicated over a.ranks ranks (ir/ops.h, CollectiveAttrs).
  ValueId collective(ValueId x, const CollectiveAttrs& a);
  // Scaled dot-product attention (ir/ops.h, AttentionAttrs): its output or log-sum-exp.
  ValueId attention(ValueId q, ValueId k, ValueId v, const AttentionAttrs& a);
  // Its gradients (modes kAttentionGradQ and kAttentionGradKV).
  ValueId attention_grad(ValueId q, ValueId k, ValueId v, ValueId dout, ValueId lse, ValueId delta,
                         const AttentionAttrs& a);
  // An LSTM layer's recurrence (ir/ops.h, LstmAttrs): the packed states from (xp, w, h0, c0), or
  // in mode kLstmGrad the gradients from (p, w, c0, dp); `sync` (or -1) the fused kernel's
  // barrier words.
  ValueId lstm(ValueId xp, ValueId w, ValueId h0, ValueId c0, const LstmAttrs& a,
               ValueId sync = -1);
  ValueId lstm_grad(ValueId p, ValueId w, ValueId c0, ValueId dp, const LstmAttrs& a,
                    ValueId sync = -1);

  // Appends a copy of `n` (any op but Input) reading `inputs` instead of n's own inputs,
  // re-validated and re-inferred, keeping n's label: how transforms copy nodes between graphs.
  ValueId replay(const Node& n, const ValueIds& inputs);
  const Node& node(ValueId v) const { return g_.node(v); }

 private:
  ValueId add(OpKind op, ValueIds inputs, TensorType type, Attrs attrs);
  Graph& g_;
};

// NumPy broadcasting of equal-rank shapes; throws naming `op` when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace ember::ir
