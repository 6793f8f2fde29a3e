// One vector-Jacobian rule per differentiable primitive, written with the builder so that the
// backward pass is ordinary primitives. Rules read forward values by id (the node's inputs `x`,
// `a`, `b` and its output `y`).
#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "ir/attention_compose.h"
#include "ir/autodiff.h"
#include "ir/conv_compose.h"
#include "ir/error.h"
#include "ir/lstm_compose.h"
#include "ir/vjp_cache.h"

namespace ember::ir {
namespace {

class Rules {
 public:
  Rules(Builder& b, ValueId id, const std::vector<ValueId>* values, VjpCache* cache)
      : b_(b), id_(values ? (*values)[id] : id), n_(b.node(id)), values_(values), cache_(cache) {}

  ValueId apply(int k, ValueId g) {
    switch (n_.op) {
      case OpKind::Unary:
        return unary(g);
      case OpKind::Binary:
        return binary(k, g);
      case OpKind::Where:
        return where(k, g);
      case OpKind::Cast:
        return is_float(type(in(0)).dtype) ? b_.cast(g, type(in(0)).dtype) : -1;
      case OpKind::Reduce:
        return reduce(g);
      case OpKind::Reshape:
        return b_.reshape(g, shape(in(0)));
      case OpKind::Permute:
        return permute(g);
      case OpKind::Expand:
        return unbroadcast(g, shape(in(0)));
      case OpKind::Slice:
        return slice(g);
      case OpKind::Flip:
        return b_.flip(g, n_.get<FlipAttrs>().axes);
      case OpKind::Pad:
        return pad(g);
      case OpKind::Concat:
        return concat(k, g);
      case OpKind::Matmul:
        return matmul(k, g);
      case OpKind::Gather:
        return k == 0 ? b_.scatter_add(zeros(in(0)), axis(), in(1), g) : -1;
      case OpKind::ScatterAdd:
        return k == 0 ? g : k == 2 ? b_.gather(g, axis(), in(1)) : -1;
      case OpKind::Sort:
        return sort(g);
      case OpKind::Conv:
        return conv(k, g);
      case OpKind::Collective:
        return collective(g);
      case OpKind::Attention:
        return attention(k, g);
      case OpKind::Lstm:
        return lstm(k, g);
      default:
        return -1;  // sources (input, full, iota, random) have no inputs
    }
  }

  // Sums over ranks transpose to sums over ranks (an all-reduce's gradient is the all-reduce of
  // the gradients), gathers to scatters and back; the others have no rule.
  ValueId collective(ValueId g) {
    CollectiveAttrs a = n_.get<CollectiveAttrs>();
    const bool sum_like = a.reduce == CollectiveReduce::Sum || a.reduce == CollectiveReduce::Mean;
    switch (a.kind) {
      case CollectiveKind::AllReduce:
        if (sum_like) return b_.collective(g, a);
        break;
      case CollectiveKind::AllGather:
        a.kind = CollectiveKind::ReduceScatter;
        a.reduce = CollectiveReduce::Sum;
        return b_.collective(g, a);
      case CollectiveKind::ReduceScatter:
        if (a.reduce != CollectiveReduce::Sum) break;
        a.kind = CollectiveKind::AllGather;
        return b_.collective(g, a);
      case CollectiveKind::Broadcast:
        break;
    }
    throw Error(absl::StrCat("backward: ", collective_name(a.kind),
                             " has no gradient here (sum and mean all-reduces, all-gathers and "
                             "sum reduce-scatters do); detach its input"));
  }

 private:
  ValueId in(int k) const { return values_ ? (*values_)[n_.inputs[k]] : n_.inputs[k]; }
  // Copies, not references: every rule appends to the graph, which may move its nodes.
  TensorType type(ValueId v) const { return b_.type(v); }
  Shape shape(ValueId v) const { return b_.type(v).shape; }
  int axis() const { return n_.get<AxisAttrs>().axis; }

  ValueId scalar(double v) {
    return b_.full(Shape(std::vector<int64_t>(n_.type.shape.rank(), 1)), n_.type.dtype,
                   Scalar::from_double(v));
  }
  ValueId zeros(ValueId like) {
    return b_.full(shape(like), type(like).dtype, Scalar::from_double(0));
  }
  ValueId mul(ValueId a, ValueId b) { return b_.binary(BinaryFn::Mul, a, b); }
  ValueId div(ValueId a, ValueId b) { return b_.binary(BinaryFn::Div, a, b); }
  ValueId add(ValueId a, ValueId b) { return b_.binary(BinaryFn::Add, a, b); }
  ValueId sub(ValueId a, ValueId b) { return b_.binary(BinaryFn::Sub, a, b); }
  ValueId neg(ValueId a) { return b_.unary(UnaryFn::Neg, a); }
  ValueId fn(UnaryFn f, ValueId a) { return b_.unary(f, a); }
  ValueId as_float(ValueId mask) { return b_.cast(mask, n_.type.dtype); }

  // Sums `g` over the dims that broadcasting widened from `to` (ranks are equal in the IR).
  ValueId unbroadcast(ValueId g, const Shape& to) {
    for (int d = 0; d < to.rank(); ++d) {
      if (to[d] == 1 && shape(g)[d] != 1) g = b_.reduce(ReduceFn::Sum, g, d);
    }
    return g;
  }

  ValueId unary(ValueId g) {
    ValueId x = in(0), y = id_;
    switch (n_.get<UnaryAttrs>().fn) {
      case UnaryFn::Neg:
        return neg(g);
      case UnaryFn::Abs:
        return mul(g, fn(UnaryFn::Sign, x));
      case UnaryFn::Exp:
        return mul(g, y);
      case UnaryFn::Log:
        return div(g, x);
      case UnaryFn::Log1p:
        return div(g, add(x, scalar(1)));
      case UnaryFn::Sqrt:
        return div(mul(g, scalar(0.5)), y);
      case UnaryFn::Sin:
        return mul(g, fn(UnaryFn::Cos, x));
      case UnaryFn::Cos:
        return neg(mul(g, fn(UnaryFn::Sin, x)));
      case UnaryFn::Tan:
        return mul(g, add(scalar(1), mul(y, y)));
      case UnaryFn::Tanh:
        return mul(g, sub(scalar(1), mul(y, y)));
      case UnaryFn::Sinh:
        return mul(g, fn(UnaryFn::Cosh, x));
      case UnaryFn::Cosh:
        return mul(g, fn(UnaryFn::Sinh, x));
      case UnaryFn::Erf: {
        ValueId bell = fn(UnaryFn::Exp, neg(mul(x, x)));
        return mul(g, mul(bell, scalar(2 / std::sqrt(std::numbers::pi))));
      }
      case UnaryFn::Recip:
        return neg(mul(g, mul(y, y)));
      case UnaryFn::Floor:
      case UnaryFn::Ceil:
      case UnaryFn::Round:
      case UnaryFn::Sign:
        return zeros(x);  // piecewise constant: zero almost everywhere
      default:
        return -1;
    }
  }

  ValueId binary(int k, ValueId g) {
    ValueId a = in(0), b = in(1), y = id_;
    const Shape& target = shape(in(k));
    auto pick = [&](ValueId ga, ValueId gb) { return unbroadcast(k == 0 ? ga : gb, target); };
    switch (n_.get<BinaryAttrs>().fn) {
      case BinaryFn::Add:
        return unbroadcast(g, target);
      case BinaryFn::Sub:
        return unbroadcast(k == 0 ? g : neg(g), target);
      case BinaryFn::Mul:
        return unbroadcast(mul(g, k == 0 ? b : a), target);
      case BinaryFn::Div:
        return k == 0 ? unbroadcast(div(g, b), target)
                      : unbroadcast(neg(div(mul(g, y), b)), target);
      case BinaryFn::Rem:  // a - floor(a / b) * b
        return k == 0 ? unbroadcast(g, target)
                      : unbroadcast(neg(mul(g, fn(UnaryFn::Floor, div(a, b)))), target);
      case BinaryFn::Pow:
        return k == 0 ? pow_base(g) : pow_exponent(g);
      case BinaryFn::Max:
      case BinaryFn::Min: {
        // Ties split the gradient evenly, as PyTorch's maximum/minimum do.
        BinaryFn wins = n_.get<BinaryAttrs>().fn == BinaryFn::Max ? BinaryFn::Gt : BinaryFn::Lt;
        ValueId share_a = add(as_float(b_.binary(wins, a, b)),
                              mul(as_float(b_.binary(BinaryFn::Eq, a, b)), scalar(0.5)));
        return pick(mul(g, share_a), mul(g, sub(scalar(1), share_a)));
      }
      default:
        return -1;
    }
  }

  ValueId pow_base(ValueId g) {  // b * a^(b - 1)
    ValueId a = in(0), b = in(1);
    ValueId d = mul(b, b_.binary(BinaryFn::Pow, a, sub(b, scalar(1))));
    return unbroadcast(mul(g, d), shape(a));
  }

  ValueId pow_exponent(ValueId g) {  // a^b * ln a, taken as 0 where a <= 0 (as at a == 0)
    ValueId a = in(0);
    ValueId positive = b_.binary(BinaryFn::Gt, a, scalar(0));
    ValueId ln = b_.where(positive, fn(UnaryFn::Log, a), scalar(0));
    return unbroadcast(mul(g, mul(id_, ln)), shape(in(1)));
  }

  ValueId where(int k, ValueId g) {
    if (k == 0) return -1;
    ValueId cond = in(0), zero = scalar(0);
    ValueId routed = k == 1 ? b_.where(cond, g, zero) : b_.where(cond, zero, g);
    return unbroadcast(routed, shape(in(k)));
  }

  ValueId reduce(ValueId g) {
    ValueId x = in(0), y = id_;
    const auto& attrs = n_.get<ReduceAttrs>();
    switch (attrs.fn) {
      case ReduceFn::Sum:
        return b_.expand(g, shape(x));
      case ReduceFn::Prod:
        return prod(g, x, y, attrs.axis);
      case ReduceFn::Max:
      case ReduceFn::Min: {
        // Shared evenly between the elements equal to the extremum. The extremum is taken again
        // from x as the backward sees it, not the forward's y: under balanced checkpointing x is
        // recomputed in another kernel, and a last-bit difference from the forward's (another
        // driver's code for the same expression) would leave no element equal to y, 0 / 0 = NaN
        // (seen on NVIDIA's Vulkan driver, training fuzz program 190).
        (void)y;
        ValueId ext = b_.reduce(attrs.fn, x, attrs.axis);
        ValueId hit = as_float(b_.binary(BinaryFn::Eq, x, ext));
        ValueId count = b_.reduce(ReduceFn::Sum, hit, attrs.axis);
        return mul(div(g, count), hit);
      }
      default:
        return -1;
    }
  }

  // d prod / d x_i is the product of the other elements: y / x_i without zeros; with one zero,
  // the product of the nonzero elements at the zero and 0 elsewhere; with more, 0.
  ValueId prod(ValueId g, ValueId x, ValueId y, int axis) {
    ValueId is_zero = b_.binary(BinaryFn::Eq, x, scalar(0));
    ValueId zeros = b_.reduce(ReduceFn::Sum, as_float(is_zero), axis);
    ValueId others_nonzero = b_.reduce(ReduceFn::Prod, b_.where(is_zero, scalar(1), x), axis);
    ValueId lone_zero =
        b_.binary(BinaryFn::LogicalAnd, is_zero, b_.binary(BinaryFn::Eq, zeros, scalar(1)));
    ValueId with_zero = b_.where(lone_zero, b_.expand(others_nonzero, shape(x)), scalar(0));
    ValueId none_zero = b_.binary(BinaryFn::Eq, zeros, scalar(0));
    return mul(b_.expand(g, shape(x)),
               b_.where(none_zero, div(b_.expand(y, shape(x)), x), with_zero));
  }

  ValueId permute(ValueId g) {
    const auto& perm = n_.get<PermuteAttrs>().perm;
    std::vector<int> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int>(i);
    return b_.permute(g, inverse);
  }

  // Puts each element of `g` back at start + i * step along every dim, zeros elsewhere.
  ValueId slice(ValueId g) {
    const auto& attrs = n_.get<SliceAttrs>();
    const Shape& full = shape(in(0));
    for (int d = 0; d < full.rank(); ++d)
      g = unslice_dim(g, d, attrs.starts[d], attrs.steps[d], full[d]);
    return g;
  }

  ValueId unslice_dim(ValueId g, int d, int64_t start, int64_t step, int64_t size) {
    int r = shape(g).rank();
    int64_t count = shape(g)[d];
    std::vector<int64_t> none(r, 0);
    if (step > 1 && count > 0) {  // interleave step - 1 zeros after each element
      std::vector<int64_t> split = shape(g).vector();
      split.insert(split.begin() + d + 1, 1);
      ValueId x = b_.reshape(g, Shape(split));
      std::vector<int64_t> before(r + 1, 0), after(r + 1, 0);
      after[d + 1] = step - 1;
      x = b_.pad(x, before, after, Scalar::from_double(0));
      Shape spread = shape(g);
      spread[d] = count * step;
      g = b_.reshape(x, spread);
      int64_t room = size - start;
      if (count * step > room) {  // the zeros after the last element run past the end
        std::vector<int64_t> starts(r, 0), counts = shape(g).vector(), steps(r, 1);
        counts[d] = room;
        g = b_.slice(g, starts, counts, steps);
      }
    }
    std::vector<int64_t> before = none, after = none;
    before[d] = start;
    after[d] = size - start - shape(g)[d];
    if (before[d] == 0 && after[d] == 0) return g;  // the slice kept this dim whole
    return b_.pad(g, before, after, Scalar::from_double(0));
  }

  ValueId pad(ValueId g) {
    const auto& attrs = n_.get<PadAttrs>();
    int r = shape(g).rank();
    return b_.slice(g, attrs.before, shape(in(0)).vector(), std::vector<int64_t>(r, 1));
  }

  ValueId concat(int k, ValueId g) {
    int ax = axis();
    int64_t offset = 0;
    for (int i = 0; i < k; ++i) offset += shape(in(i))[ax];
    int r = shape(g).rank();
    std::vector<int64_t> starts(r, 0);
    starts[ax] = offset;
    return b_.slice(g, starts, shape(in(k)).vector(), std::vector<int64_t>(r, 1));
  }

  ValueId transpose(ValueId v) {
    int r = shape(v).rank();
    std::vector<int> perm(r);
    for (int i = 0; i < r; ++i) perm[i] = i;
    std::swap(perm[r - 1], perm[r - 2]);
    return b_.permute(v, perm);
  }

  ValueId matmul(int k, ValueId g) {
    ValueId a = in(0), b = in(1);
    ValueId d = k == 0 ? b_.matmul(g, transpose(b)) : b_.matmul(transpose(a), g);
    return unbroadcast(d, shape(in(k)));
  }

  ValueId sort(ValueId g) {
    const auto& attrs = n_.get<SortAttrs>();
    if (attrs.indices) return -1;
    ValueId x = in(0);
    ValueId order = b_.sort(x, attrs.axis, attrs.descending, true, DType::I32);
    return b_.scatter_add(zeros(x), attrs.axis, order, g);
  }

  // Through the fused kernels' modes where they apply (the cache shares the log-sum-exp, delta
  // and the packed key/value gradients between the three inputs), else the composite.
  ValueId attention(int k, ValueId g) {
    const AttentionAttrs& a = n_.get<AttentionAttrs>();
    if (a.mode != kAttentionOutput) {
      throw Error("backward: attention's own backward nodes have no gradient (second derivatives)");
    }
    std::vector<ValueId> local;
    std::vector<ValueId>& shared = cache_ ? cache_->values : local;
    if (attention_compose::gradient_by_modes(b_, in(0), in(2))) {
      return attention_compose::gradient_through_modes(b_, in(0), in(1), in(2), id_, g, a, k,
                                                       shared);
    }
    return attention_compose::gradient(b_, in(0), in(1), in(2), id_, g, a, k, &shared);
  }

  // Through the gradient mode (one node for the whole sequence), its rows shared between the
  // inputs' calls.
  ValueId lstm(int k, ValueId g) {
    const LstmAttrs& a = n_.get<LstmAttrs>();
    if (a.mode != kLstmForward) {
      throw Error("backward: the lstm's own gradient node has no gradient (second derivatives)");
    }
    std::vector<ValueId> local;
    std::vector<ValueId>& shared = cache_ ? cache_->values : local;
    const ValueIds operands{in(0), in(1), in(2), in(3)};
    return lstm_compose::gradient(b_, operands, id_, g, a, k, shared);
  }

  // The recording interface ir/conv_compose.h composes with.
  struct Ops {
    Builder& b;
    Shape shape(ValueId v) const { return b.type(v).shape; }
    ValueId reshape(ValueId v, const Shape& s) { return b.reshape(v, s); }
    ValueId permute(ValueId v, const std::vector<int>& p) { return b.permute(v, p); }
    ValueId flip(ValueId v, const std::vector<int>& axes) { return b.flip(v, axes); }
    ValueId pad(ValueId v, const std::vector<int64_t>& before, const std::vector<int64_t>& after) {
      return b.pad(v, before, after, Scalar::from_double(0));
    }
    ValueId slice(ValueId v, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& counts) {
      return b.slice(v, starts, counts, std::vector<int64_t>(starts.size(), 1));
    }
    ValueId conv(ValueId x, ValueId w, const ConvAttrs& a) { return b.conv(x, w, a); }
    ValueId sum(ValueId v, int axis) { return b.reduce(ReduceFn::Sum, v, axis); }
    ValueId add(ValueId u, ValueId v) { return b.binary(BinaryFn::Add, u, v); }
  };

  ValueId conv(int k, ValueId g) {
    const auto& attrs = n_.get<ConvAttrs>();
    Ops ops{b_};
    const std::vector<int64_t> x_dims = shape(in(0)).vector(), w_dims = shape(in(1)).vector();
    if (k == 0) {
      std::vector<int64_t> spatial(x_dims.begin() + 2, x_dims.end());
      return conv_compose::transpose(ops, g, in(1), attrs, spatial);
    }
    std::vector<int64_t> kernel(w_dims.begin() + 2, w_dims.end());
    return conv_compose::weight_grad(ops, in(0), g, attrs, kernel);
  }

  Builder& b_;
  ValueId id_;
  Node n_;  // a copy: the rules append to the graph that holds the original
  const std::vector<ValueId>* values_;
  VjpCache* cache_;
};

}  // namespace

ValueId vjp(Builder& b, ValueId id, int input, ValueId grad, const std::vector<ValueId>* values) {
  return Rules(b, id, values, nullptr).apply(input, grad);
}

ValueId vjp(Builder& b, ValueId id, int input, ValueId grad, const std::vector<ValueId>* values,
            VjpCache* cache) {
  return Rules(b, id, values, cache).apply(input, grad);
}

}  // namespace ember::ir
