#include "absl/strings/str_cat.h"
#include "ir/builder.h"
#include "ir/error.h"

namespace ember::ir {
namespace {

bool is_arg_reduce(ReduceFn fn) { return fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin; }

ValueId replay_unlabelled(Builder& b, const Node& n, const ValueIds& in) {
  const Shape& shape = n.type.shape;
  switch (n.op) {
    case OpKind::Input:
      throw Error("replay: an input node has no recipe");
    case OpKind::Full:
      return b.full(shape, n.type.dtype, n.get<FullAttrs>().value);
    case OpKind::Iota:
      return b.iota(shape, n.type.dtype, n.get<IotaAttrs>().axis);
    case OpKind::Random:
      return b.random(shape, n.type.dtype, n.get<RandomAttrs>());
    case OpKind::Unary:
      return b.unary(n.get<UnaryAttrs>().fn, in[0]);
    case OpKind::Binary:
      return b.binary(n.get<BinaryAttrs>().fn, in[0], in[1]);
    case OpKind::Where:
      return b.where(in[0], in[1], in[2]);
    case OpKind::Cast:
      return b.cast(in[0], n.type.dtype);
    case OpKind::Reduce: {
      const auto& a = n.get<ReduceAttrs>();
      return b.reduce(a.fn, in[0], a.axis, is_arg_reduce(a.fn) ? n.type.dtype : DType::I32);
    }
    case OpKind::Reshape:
      return b.reshape(in[0], shape);
    case OpKind::Permute:
      return b.permute(in[0], n.get<PermuteAttrs>().perm);
    case OpKind::Expand:
      return b.expand(in[0], shape);
    case OpKind::Slice: {
      const auto& a = n.get<SliceAttrs>();
      return b.slice(in[0], a.starts, shape.vector(), a.steps);
    }
    case OpKind::Flip:
      return b.flip(in[0], n.get<FlipAttrs>().axes);
    case OpKind::Pad: {
      const auto& a = n.get<PadAttrs>();
      return b.pad(in[0], a.before, a.after, a.value);
    }
    case OpKind::Concat:
      return b.concat(std::vector<ValueId>(in.begin(), in.end()), n.get<AxisAttrs>().axis);
    case OpKind::Matmul:
      return b.matmul(in[0], in[1]);
    case OpKind::Gather:
      return b.gather(in[0], n.get<AxisAttrs>().axis, in[1]);
    case OpKind::ScatterAdd:
      return b.scatter_add(in[0], n.get<AxisAttrs>().axis, in[1], in[2]);
    case OpKind::Sort: {
      const auto& a = n.get<SortAttrs>();
      return b.sort(in[0], a.axis, a.descending, a.indices, n.type.dtype);
    }
    case OpKind::Conv:
      return b.conv(in[0], in[1], n.get<ConvAttrs>());
    case OpKind::Collective:
      return b.collective(in[0], n.get<CollectiveAttrs>());
    case OpKind::Attention:
      if (in.size() == 6) {
        return b.attention_grad(in[0], in[1], in[2], in[3], in[4], in[5], n.get<AttentionAttrs>());
      }
      return b.attention(in[0], in[1], in[2], n.get<AttentionAttrs>());
    case OpKind::Lstm: {
      const auto& a = n.get<LstmAttrs>();
      const ValueId sync = in.size() > 4 ? in[4] : -1;
      if (a.mode == kLstmGrad) return b.lstm_grad(in[0], in[1], in[2], in[3], a, sync);
      return b.lstm(in[0], in[1], in[2], in[3], a, sync);
    }
  }
  throw Error(absl::StrCat("replay: unknown op ", static_cast<int>(n.op)));
}

}  // namespace

ValueId Builder::replay(const Node& n, const ValueIds& inputs) {
  if (inputs.size() != n.inputs.size() && n.op != OpKind::Input) {
    throw Error(absl::StrCat("replay: ", op_name(n.op), " expects ", n.inputs.size(),
                             " inputs, got ", inputs.size()));
  }
  const char* label = n.label;  // read first: `n` may live in the graph being appended to
  ValueId id = replay_unlabelled(*this, n, inputs);
  g_.set_label(id, label);
  return id;
}

}  // namespace ember::ir
