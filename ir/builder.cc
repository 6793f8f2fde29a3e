#include "ir/builder.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/error.h"

namespace ember::ir {
namespace {

thread_local const char* g_op_scope = nullptr;

[[noreturn]] void fail(const char* op, const std::string& msg) {
  throw Error(absl::StrCat(op_label(op), ": ", msg));
}

// Checks a precondition; the message (often formatted) is built only when it fails: recording
// runs these on every op.
#define EMBER_REQUIRE(ok, op, msg) \
  do {                             \
    if (!(ok)) fail(op, msg);      \
  } while (0)

bool unary_needs_float(UnaryFn fn) {
  switch (fn) {
    case UnaryFn::Neg:
    case UnaryFn::Abs:
    case UnaryFn::Sign:
    case UnaryFn::LogicalNot:
    case UnaryFn::BitwiseNot:
      return false;
    default:
      return true;
  }
}

void check_unary_dtype(UnaryFn fn, DType t) {
  const char* name = unary_name(fn);
  if (fn == UnaryFn::LogicalNot) {
    EMBER_REQUIRE(is_bool(t), name, absl::StrCat("needs a bool tensor, got ", dtype_name(t)));
  } else if (fn == UnaryFn::BitwiseNot) {
    EMBER_REQUIRE(is_int(t), name, absl::StrCat("needs an int tensor, got ", dtype_name(t)));
  } else if (unary_needs_float(fn)) {
    EMBER_REQUIRE(is_float(t), name, absl::StrCat("needs a float tensor, got ", dtype_name(t)));
  } else {
    EMBER_REQUIRE(!is_bool(t), name, "not supported for bool tensors");
  }
}

DType check_binary_dtype(BinaryFn fn, DType a, DType b) {
  const char* name = binary_name(fn);
  EMBER_REQUIRE(a == b, name,
                absl::StrCat("dtypes differ: ", dtype_name(a), " and ", dtype_name(b)));
  if (is_comparison(fn)) return DType::Bool;
  switch (fn) {
    case BinaryFn::LogicalAnd:
    case BinaryFn::LogicalOr:
      EMBER_REQUIRE(is_bool(a), name, absl::StrCat("needs bool tensors, got ", dtype_name(a)));
      return DType::Bool;
    case BinaryFn::BitAnd:
    case BinaryFn::BitOr:
    case BinaryFn::BitXor:
    case BinaryFn::Shl:
    case BinaryFn::Shr:
      EMBER_REQUIRE(is_int(a), name, absl::StrCat("needs int tensors, got ", dtype_name(a)));
      return a;
    default:
      EMBER_REQUIRE(!is_bool(a), name, "not supported for bool tensors");
      return a;
  }
}

}  // namespace

OpScope::OpScope(const char* name) : previous_(g_op_scope) { g_op_scope = name; }
OpScope::~OpScope() { g_op_scope = previous_; }
const char* OpScope::current() { return g_op_scope; }

std::string op_label(const char* primitive) {
  if (g_op_scope == nullptr || std::string_view(g_op_scope) == primitive) return primitive;
  return absl::StrCat(g_op_scope, " (", primitive, ")");
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  if (a == b) return a;
  if (a.rank() != b.rank()) {
    fail(op, absl::StrCat("ranks differ: ", a.to_string(), " and ", b.to_string()));
  }
  Shape out = a;
  for (int i = 0; i < a.rank(); ++i) {
    if (a[i] == b[i] || b[i] == 1) continue;
    if (a[i] == 1) {
      out[i] = b[i];
      continue;
    }
    fail(op, absl::StrCat("shapes ", a.to_string(), " and ", b.to_string(),
                          " do not broadcast (dim ", i, ")"));
  }
  return out;
}

ValueId Builder::add(OpKind op, ValueIds inputs, TensorType type, Attrs attrs) {
  for (int64_t d : type.shape.dims) EMBER_REQUIRE(d >= 0, op_name(op), "negative size");
  // The element and byte counts must fit in int64: every later size computation relies on it.
  int64_t bytes = static_cast<int64_t>(dtype_size(type.dtype));
  for (int64_t d : type.shape.dims) {
    EMBER_REQUIRE(!__builtin_mul_overflow(bytes, d, &bytes), op_name(op),
                  absl::StrCat("shape ", type.to_string(), " has more bytes than int64 can count"));
  }
  return g_.add(op, std::move(inputs), std::move(type), std::move(attrs), OpScope::current());
}

ValueId Builder::input(int slot, const TensorType& t) {
  return add(OpKind::Input, {}, t, InputAttrs{slot});
}

ValueId Builder::full(const Shape& shape, DType dtype, Scalar value) {
  return add(OpKind::Full, {}, {dtype, shape}, FullAttrs{value});
}

ValueId Builder::iota(const Shape& shape, DType dtype, int axis) {
  EMBER_REQUIRE(axis >= 0 && axis < shape.rank(), "iota", "axis out of range");
  EMBER_REQUIRE(!is_bool(dtype), "iota", "bool dtype not supported");
  return add(OpKind::Iota, {}, {dtype, shape}, IotaAttrs{axis});
}

ValueId Builder::random(const Shape& shape, DType dtype, const RandomAttrs& attrs) {
  EMBER_REQUIRE(is_float(dtype), "random",
                absl::StrCat("needs a float dtype, got ", dtype_name(dtype)));
  return add(OpKind::Random, {}, {dtype, shape}, attrs);
}

ValueId Builder::unary(UnaryFn fn, ValueId x) {
  DType t = type(x).dtype;
  check_unary_dtype(fn, t);
  DType out = (fn == UnaryFn::IsNan || fn == UnaryFn::IsInf) ? DType::Bool : t;
  return add(OpKind::Unary, {x}, {out, type(x).shape}, UnaryAttrs{fn});
}

namespace {

// The operand whose shape is the broadcast result when one of them is (equal shapes, or the
// other all ones of the same rank: a tensor-scalar op), else null.
const Shape* whole_broadcast(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return nullptr;
  bool b_ones = true, a_ones = true;
  for (int i = 0; i < a.rank(); ++i) {
    b_ones = b_ones && (b[i] == 1 || b[i] == a[i]);
    a_ones = a_ones && (a[i] == 1 || a[i] == b[i]);
  }
  return b_ones ? &a : a_ones ? &b : nullptr;
}

}  // namespace

ValueId Builder::binary(BinaryFn fn, ValueId a, ValueId b) {
  const TensorType& ta = type(a);
  const TensorType& tb = type(b);
  DType out = check_binary_dtype(fn, ta.dtype, tb.dtype);
  // Built in place from the operand's shape: a tensor-scalar op is most of an eager step, and
  // copying the shape through the general path cost a fifth of recording one.
  if (const Shape* shape = whole_broadcast(ta.shape, tb.shape)) {
    return g_.add(OpKind::Binary, {a, b}, TensorType{out, *shape}, BinaryAttrs{fn},
                  OpScope::current());
  }
  Shape shape = broadcast_shapes(ta.shape, tb.shape, binary_name(fn));
  return add(OpKind::Binary, {a, b}, {out, std::move(shape)}, BinaryAttrs{fn});
}

ValueId Builder::where(ValueId cond, ValueId a, ValueId b) {
  EMBER_REQUIRE(is_bool(type(cond).dtype), "where",
                absl::StrCat("condition must be bool, got ", dtype_name(type(cond).dtype)));
  EMBER_REQUIRE(type(a).dtype == type(b).dtype, "where",
                absl::StrCat("dtypes differ: ", dtype_name(type(a).dtype), " and ",
                             dtype_name(type(b).dtype)));
  Shape s = broadcast_shapes(type(cond).shape, type(a).shape, "where");
  s = broadcast_shapes(s, type(b).shape, "where");
  return add(OpKind::Where, {cond, a, b}, {type(a).dtype, s}, NoAttrs{});
}

ValueId Builder::cast(ValueId x, DType dtype) {
  return add(OpKind::Cast, {x}, {dtype, type(x).shape}, NoAttrs{});
}

ValueId Builder::reduce(ReduceFn fn, ValueId x, int axis, DType index_dtype) {
  const char* name = reduce_name(fn);
  const TensorType& t = type(x);
  EMBER_REQUIRE(axis >= 0 && axis < t.shape.rank(), name,
                absl::StrCat("axis ", axis, " out of range for ", t.to_string()));
  bool arg = fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin;
  if (fn == ReduceFn::Sum || fn == ReduceFn::Prod) {
    EMBER_REQUIRE(!is_bool(t.dtype), name, "not supported for bool tensors");
  }
  if (arg || fn == ReduceFn::Max || fn == ReduceFn::Min) {
    EMBER_REQUIRE(t.shape[axis] > 0, name,
                  absl::StrCat("cannot reduce an empty axis of ", t.to_string()));
  }
  Shape s = t.shape;
  s[axis] = 1;
  return add(OpKind::Reduce, {x}, {arg ? index_dtype : t.dtype, s}, ReduceAttrs{fn, axis});
}

ValueId Builder::reshape(ValueId x, const Shape& shape) {
  const TensorType& t = type(x);
  EMBER_REQUIRE(
      shape.numel() == t.shape.numel(), "reshape",
      absl::StrCat("cannot reshape ", t.shape.to_string(), " (", t.shape.numel(), " elements) to ",
                   shape.to_string(), " (", shape.numel(), " elements)"));
  return add(OpKind::Reshape, {x}, {t.dtype, shape}, NoAttrs{});
}

ValueId Builder::permute(ValueId x, const std::vector<int>& perm) {
  const TensorType& t = type(x);
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int>(perm.size()) == t.shape.rank();
  for (int i = 0; ok && i < static_cast<int>(sorted.size()); ++i) ok = sorted[i] == i;
  EMBER_REQUIRE(ok, "permute",
                absl::StrCat("[", absl::StrJoin(perm, ", "),
                             "] is not a permutation of the dims of ", t.shape.to_string()));
  Shape s = t.shape;
  for (size_t i = 0; i < perm.size(); ++i) s[i] = t.shape[perm[i]];
  return add(OpKind::Permute, {x}, {t.dtype, s}, PermuteAttrs{perm});
}

ValueId Builder::expand(ValueId x, const Shape& shape) {
  const TensorType& t = type(x);
  bool ok = shape.rank() == t.shape.rank();
  for (int i = 0; ok && i < shape.rank(); ++i) ok = t.shape[i] == shape[i] || t.shape[i] == 1;
  EMBER_REQUIRE(ok, "expand",
                absl::StrCat("cannot expand ", t.shape.to_string(), " to ", shape.to_string()));
  return add(OpKind::Expand, {x}, {t.dtype, shape}, NoAttrs{});
}

ValueId Builder::slice(ValueId x, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& counts, const std::vector<int64_t>& steps) {
  const TensorType& t = type(x);
  int r = t.shape.rank();
  EMBER_REQUIRE(static_cast<int>(starts.size()) == r && static_cast<int>(counts.size()) == r &&
                    static_cast<int>(steps.size()) == r,
                "slice", absl::StrCat("expected ", r, " ranges for ", t.shape.to_string()));
  Shape s = t.shape;
  for (int d = 0; d < r; ++d) {
    bool ok = steps[d] > 0 && counts[d] >= 0 && starts[d] >= 0 &&
              (counts[d] == 0 || starts[d] + (counts[d] - 1) * steps[d] < t.shape[d]) &&
              starts[d] <= t.shape[d];
    EMBER_REQUIRE(ok, "slice",
                  absl::StrCat("range start=", starts[d], " count=", counts[d], " step=", steps[d],
                               " out of bounds for dim ", d, " of ", t.shape.to_string()));
    s[d] = counts[d];
  }
  return add(OpKind::Slice, {x}, {t.dtype, s}, SliceAttrs{starts, steps});
}

ValueId Builder::flip(ValueId x, const std::vector<int>& axes) {
  const TensorType& t = type(x);
  std::vector<bool> seen(t.shape.rank(), false);
  for (int a : axes) {
    EMBER_REQUIRE(a >= 0 && a < t.shape.rank(), "flip",
                  absl::StrCat("axis ", a, " out of range for ", t.shape.to_string()));
    EMBER_REQUIRE(!seen[a], "flip", absl::StrCat("axis ", a, " appears more than once"));
    seen[a] = true;
  }
  return add(OpKind::Flip, {x}, t, FlipAttrs{axes});
}

ValueId Builder::pad(ValueId x, const std::vector<int64_t>& before,
                     const std::vector<int64_t>& after, Scalar value) {
  const TensorType& t = type(x);
  int r = t.shape.rank();
  EMBER_REQUIRE(static_cast<int>(before.size()) == r && static_cast<int>(after.size()) == r, "pad",
                absl::StrCat("expected ", r, " pad pairs for ", t.shape.to_string()));
  Shape s = t.shape;
  for (int d = 0; d < r; ++d) {
    EMBER_REQUIRE(before[d] >= 0 && after[d] >= 0, "pad", "negative padding");
    s[d] += before[d] + after[d];
  }
  return add(OpKind::Pad, {x}, {t.dtype, s}, PadAttrs{before, after, value});
}

ValueId Builder::concat(const std::vector<ValueId>& xs, int axis) {
  EMBER_REQUIRE(!xs.empty(), "cat", "needs at least one tensor");
  const TensorType& t0 = type(xs[0]);
  EMBER_REQUIRE(axis >= 0 && axis < t0.shape.rank(), "cat",
                absl::StrCat("dim ", axis, " out of range for ", t0.shape.to_string()));
  Shape s = t0.shape;
  s[axis] = 0;
  for (ValueId x : xs) {
    const TensorType& t = type(x);
    bool ok = t.dtype == t0.dtype && t.shape.rank() == t0.shape.rank();
    for (int d = 0; ok && d < t.shape.rank(); ++d) ok = d == axis || t.shape[d] == t0.shape[d];
    EMBER_REQUIRE(ok, "cat",
                  absl::StrCat("tensors ", t0.to_string(), " and ", t.to_string(),
                               " do not match outside dim ", axis));
    s[axis] += t.shape[axis];
  }
  return add(OpKind::Concat, ValueIds(xs.begin(), xs.end()), {t0.dtype, s}, AxisAttrs{axis});
}

ValueId Builder::matmul(ValueId a, ValueId b) {
  const TensorType& ta = type(a);
  const TensorType& tb = type(b);
  int r = ta.shape.rank();
  std::string shapes = absl::StrCat(ta.to_string(), " and ", tb.to_string());
  EMBER_REQUIRE(r >= 2 && tb.shape.rank() == r, "matmul", "needs equal ranks >= 2, got " + shapes);
  EMBER_REQUIRE(ta.dtype == tb.dtype && !is_bool(ta.dtype), "matmul",
                "needs equal non-bool dtypes, got " + shapes);
  EMBER_REQUIRE(ta.shape[r - 1] == tb.shape[r - 2], "matmul", "inner dims differ: " + shapes);
  Shape s = ta.shape;
  for (int d = 0; d < r - 2; ++d) {
    EMBER_REQUIRE(ta.shape[d] == tb.shape[d] || ta.shape[d] == 1 || tb.shape[d] == 1, "matmul",
                  "batch dims do not broadcast: " + shapes);
    s[d] = ta.shape[d] == 1 ? tb.shape[d] : ta.shape[d];
  }
  s[r - 1] = tb.shape[r - 1];
  return add(OpKind::Matmul, {a, b}, {ta.dtype, s}, NoAttrs{});
}

ValueId Builder::gather(ValueId x, int axis, ValueId index) {
  const TensorType& t = type(x);
  const TensorType& ti = type(index);
  std::string shapes = absl::StrCat(t.to_string(), " with index ", ti.to_string());
  EMBER_REQUIRE(is_int(ti.dtype), "gather", "index must be an int tensor: " + shapes);
  EMBER_REQUIRE(ti.shape.rank() == t.shape.rank(), "gather", "ranks differ: " + shapes);
  EMBER_REQUIRE(axis >= 0 && axis < t.shape.rank(), "gather", "dim out of range: " + shapes);
  for (int d = 0; d < t.shape.rank(); ++d) {
    EMBER_REQUIRE(d == axis || ti.shape[d] <= t.shape[d], "gather",
                  absl::StrCat("index dim ", d, " larger than the tensor's: ", shapes));
  }
  return add(OpKind::Gather, {x, index}, {t.dtype, ti.shape}, AxisAttrs{axis});
}

ValueId Builder::scatter_add(ValueId x, int axis, ValueId index, ValueId values) {
  const TensorType& t = type(x);
  const TensorType& ti = type(index);
  const TensorType& tv = type(values);
  std::string shapes =
      absl::StrCat(t.to_string(), ", index ", ti.to_string(), ", values ", tv.to_string());
  EMBER_REQUIRE(is_int(ti.dtype), "scatter", "index must be an int tensor: " + shapes);
  EMBER_REQUIRE(tv.dtype == t.dtype, "scatter", "value dtype differs: " + shapes);
  EMBER_REQUIRE(!is_bool(t.dtype), "scatter", "not supported for bool tensors");
  EMBER_REQUIRE(ti.shape == tv.shape, "scatter", "index and values shapes differ: " + shapes);
  EMBER_REQUIRE(ti.shape.rank() == t.shape.rank(), "scatter", "ranks differ: " + shapes);
  EMBER_REQUIRE(axis >= 0 && axis < t.shape.rank(), "scatter", "dim out of range: " + shapes);
  for (int d = 0; d < t.shape.rank(); ++d) {
    EMBER_REQUIRE(d == axis || ti.shape[d] <= t.shape[d], "scatter",
                  absl::StrCat("index dim ", d, " larger than the tensor's: ", shapes));
  }
  return add(OpKind::ScatterAdd, {x, index, values}, t, AxisAttrs{axis});
}

ValueId Builder::sort(ValueId x, int axis, bool descending, bool indices, DType index_dtype) {
  const TensorType& t = type(x);
  EMBER_REQUIRE(axis >= 0 && axis < t.shape.rank(), "sort",
                absl::StrCat("dim ", axis, " out of range for ", t.shape.to_string()));
  EMBER_REQUIRE(!is_bool(t.dtype), "sort", "not supported for bool tensors");
  TensorType out{indices ? index_dtype : t.dtype, t.shape};
  return add(OpKind::Sort, {x}, out, SortAttrs{axis, descending, indices});
}

}  // namespace ember::ir

namespace ember::ir {

ValueId Builder::conv(ValueId x, ValueId w, const ConvAttrs& a) {
  const TensorType& tx = type(x);
  const TensorType& tw = type(w);
  const int r = tx.shape.rank(), sr = r - 2;
  auto shapes = [&] { return absl::StrCat("input ", tx.to_string(), ", weight ", tw.to_string()); };
  EMBER_REQUIRE(r >= 3 && r <= 5, "conv",
                "input needs rank 3 to 5 ([batch, channels, 1 to 3 spatial dims]): " + shapes());
  EMBER_REQUIRE(
      tw.shape.rank() == r, "conv",
      absl::StrCat("weight needs rank ", r, " ([out, in / groups, kernel...]): ", shapes()));
  EMBER_REQUIRE(tx.dtype == tw.dtype && is_float(tx.dtype), "conv",
                "needs equal float dtypes: " + shapes());
  auto sized = [&](const std::vector<int64_t>& v) { return static_cast<int>(v.size()) == sr; };
  EMBER_REQUIRE(sized(a.stride) && sized(a.pad_before) && sized(a.pad_after) && sized(a.dilation),
                "conv", absl::StrCat("needs ", sr, " strides, paddings and dilations: ", shapes()));
  const int64_t groups = a.groups, c = tx.shape[1], o = tw.shape[0];
  EMBER_REQUIRE(groups >= 1 && c % groups == 0 && o % groups == 0, "conv",
                absl::StrCat("channels (in ", c, ", out ", o, ") must be divisible by groups ",
                             groups, ": ", shapes()));
  EMBER_REQUIRE(
      tw.shape[1] * groups == c, "conv",
      absl::StrCat("weight expects ", tw.shape[1] * groups, " input channels (", tw.shape[1],
                   " per group x ", groups, " groups), input has ", c, ": ", shapes()));
  Shape out = tx.shape;
  out[1] = o;
  for (int d = 0; d < sr; ++d) {
    const int64_t s = a.stride[d], dil = a.dilation[d], k = tw.shape[d + 2];
    EMBER_REQUIRE(s >= 1 && dil >= 1 && a.pad_before[d] >= 0 && a.pad_after[d] >= 0, "conv",
                  absl::StrCat("strides and dilations must be >= 1 and paddings >= 0: ", shapes()));
    const int64_t padded = tx.shape[d + 2] + a.pad_before[d] + a.pad_after[d];
    const int64_t extent = dil * (k - 1) + 1;
    EMBER_REQUIRE(k >= 1 && padded >= extent, "conv",
                  absl::StrCat("kernel extent ", extent, " (size ", k, ", dilation ", dil,
                               ") is larger than the padded input ", padded, " in spatial dim ", d,
                               ": ", shapes()));
    out[d + 2] = (padded - extent) / s + 1;
  }
  return add(OpKind::Conv, {x, w}, {tx.dtype, out}, a);
}

ValueId Builder::collective(ValueId x, const CollectiveAttrs& a) {
  const TensorType& tx = type(x);
  const char* op = collective_name(a.kind);
  EMBER_REQUIRE(a.ranks >= 1, op, absl::StrCat("a group of ", a.ranks, " ranks"));
  Shape out = tx.shape;
  switch (a.kind) {
    case CollectiveKind::AllReduce:
      break;
    case CollectiveKind::Broadcast:
      EMBER_REQUIRE(a.root >= 0 && a.root < a.ranks, op,
                    absl::StrCat("root ", a.root, " of ", a.ranks, " ranks"));
      break;
    case CollectiveKind::AllGather:
      EMBER_REQUIRE(tx.shape.rank() >= 1, op, "a tensor of rank 0");
      out[0] *= a.ranks;
      break;
    case CollectiveKind::ReduceScatter:
      EMBER_REQUIRE(tx.shape.rank() >= 1 && tx.shape[0] % a.ranks == 0, op,
                    absl::StrCat("dim 0 of ", tx.shape.to_string(), " is not divisible by the ",
                                 a.ranks, " ranks"));
      out[0] /= a.ranks;
      break;
  }
  const bool reduces =
      a.kind == CollectiveKind::AllReduce || a.kind == CollectiveKind::ReduceScatter;
  EMBER_REQUIRE(!reduces || tx.dtype != DType::Bool, op, "cannot reduce a bool tensor");
  return add(OpKind::Collective, {x}, {tx.dtype, out}, a);
}

}  // namespace ember::ir

namespace ember::ir {

namespace {

// q [B, H, Sq, D], k [B, Hk, Sk, D], v [B, Hk, Sk, Dv] of one floating dtype, Hk | H, Sk >= 1.
void check_attention(const TensorType& tq, const TensorType& tk, const TensorType& tv,
                     const AttentionAttrs& a) {
  auto shapes = [&] {
    return absl::StrCat("query ", tq.to_string(), ", key ", tk.to_string(), ", value ",
                        tv.to_string());
  };
  EMBER_REQUIRE(tq.shape.rank() == 4 && tk.shape.rank() == 4 && tv.shape.rank() == 4, "attention",
                "needs rank-4 [batch, heads, seq, dim] operands: " + shapes());
  EMBER_REQUIRE(tq.dtype == tk.dtype && tq.dtype == tv.dtype && is_float(tq.dtype), "attention",
                "needs operands of one floating dtype: " + shapes());
  const Shape &qs = tq.shape, &ks = tk.shape, &vs = tv.shape;
  EMBER_REQUIRE(ks[0] == qs[0] && vs[0] == qs[0], "attention", "batch sizes differ: " + shapes());
  EMBER_REQUIRE(ks[1] == vs[1] && ks[2] == vs[2], "attention",
                "key and value differ in heads or length: " + shapes());
  EMBER_REQUIRE(ks[1] >= 1 && qs[1] % ks[1] == 0, "attention",
                "key/value heads must divide query heads: " + shapes());
  EMBER_REQUIRE(ks[3] == qs[3], "attention", "query and key dims differ: " + shapes());
  EMBER_REQUIRE(ks[2] >= 1, "attention", "needs at least one key: " + shapes());
  EMBER_REQUIRE(std::isfinite(a.scale), "attention", "scale must be finite");
}

DType score_dtype(DType t) { return t == DType::F64 ? DType::F64 : DType::F32; }

}  // namespace

ValueId Builder::attention(ValueId q, ValueId k, ValueId v, const AttentionAttrs& a) {
  const TensorType tq = type(q), tk = type(k), tv = type(v);
  check_attention(tq, tk, tv, a);
  EMBER_REQUIRE(a.mode == kAttentionOutput || a.mode == kAttentionLse, "attention",
                "the gradient modes take the gradient's operands (attention_grad)");
  const Shape& qs = tq.shape;
  if (a.mode == kAttentionLse) {
    return add(OpKind::Attention, {q, k, v}, {score_dtype(tq.dtype), Shape{qs[0], qs[1], qs[2], 1}},
               a);
  }
  return add(OpKind::Attention, {q, k, v}, {tq.dtype, Shape{qs[0], qs[1], qs[2], tv.shape[3]}}, a);
}

ValueId Builder::attention_grad(ValueId q, ValueId k, ValueId v, ValueId dout, ValueId lse,
                                ValueId delta, const AttentionAttrs& a) {
  const TensorType tq = type(q), tk = type(k), tv = type(v);
  check_attention(tq, tk, tv, a);
  EMBER_REQUIRE(a.mode == kAttentionGradQ || a.mode == kAttentionGradKV, "attention",
                "attention_grad takes the gradient modes");
  const TensorType td = type(dout), tl = type(lse), tdl = type(delta);
  const Shape& qs = tq.shape;
  const DType st = score_dtype(tq.dtype);
  const Shape rows{qs[0], qs[1], qs[2], 1};
  EMBER_REQUIRE(td.dtype == tq.dtype && td.shape == Shape({qs[0], qs[1], qs[2], tv.shape[3]}) &&
                    tl.dtype == st && tl.shape == rows && tdl.dtype == st && tdl.shape == rows,
                "attention",
                absl::StrCat("gradient operands dout ", td.to_string(), ", lse ", tl.to_string(),
                             ", delta ", tdl.to_string(), " do not fit query ", tq.to_string()));
  Shape out = qs;
  if (a.mode == kAttentionGradKV) {
    EMBER_REQUIRE(tv.shape[3] == qs[3], "attention", "packed key/value gradients need Dv == D");
    out = Shape{2 * qs[0], qs[1], tk.shape[2], qs[3]};
  }
  return add(OpKind::Attention, {q, k, v, dout, lse, delta}, {tq.dtype, out}, a);
}

namespace {

// xp [B, T, 4H] (or p [B, T, 6H]), w [H, 4H], states [B, H] of one floating dtype; `sync`, when
// given, int32 [2].
void check_lstm(const Builder& b, ValueId seq, int64_t per_hidden, ValueId w, ValueId c0,
                ValueId other, ValueId sync) {
  const TensorType ts = b.type(seq), tw = b.type(w), tc = b.type(c0), to = b.type(other);
  auto shapes = [&] {
    return absl::StrCat("sequence ", ts.to_string(), ", weight ", tw.to_string(), ", states ",
                        tc.to_string(), " and ", to.to_string());
  };
  EMBER_REQUIRE(ts.shape.rank() == 3 && tw.shape.rank() == 2 && tc.shape.rank() == 2, "lstm",
                "needs a [batch, seq, gates] sequence, a [hidden, 4 hidden] weight and "
                "[batch, hidden] states: " +
                    shapes());
  EMBER_REQUIRE(
      is_float(ts.dtype) && tw.dtype == ts.dtype && tc.dtype == ts.dtype && to.dtype == ts.dtype,
      "lstm", "needs operands of one floating dtype: " + shapes());
  const int64_t batch = ts.shape[0], steps = ts.shape[1], hidden = tw.shape[0];
  EMBER_REQUIRE(tw.shape[1] == 4 * hidden && ts.shape[2] == per_hidden * hidden &&
                    tc.shape == Shape({batch, hidden}),
                "lstm", "shapes do not fit: " + shapes());
  EMBER_REQUIRE(batch >= 1 && steps >= 1 && hidden >= 1, "lstm",
                "needs a non-empty batch, sequence and state: " + shapes());
  if (sync >= 0) {
    const TensorType barrier{DType::I32, Shape{2}};
    EMBER_REQUIRE(b.type(sync) == barrier, "lstm",
                  "the barrier operand must be int32 [2], got " + b.type(sync).to_string());
  }
}

}  // namespace

ValueId Builder::lstm(ValueId xp, ValueId w, ValueId h0, ValueId c0, const LstmAttrs& a,
                      ValueId sync) {
  EMBER_REQUIRE(a.mode == kLstmForward, "lstm", "the gradient mode takes lstm_grad's operands");
  check_lstm(*this, xp, 4, w, c0, h0, sync);
  EMBER_REQUIRE(type(h0).shape == type(c0).shape, "lstm",
                "initial states differ: " + type(h0).to_string() + " and " + type(c0).to_string());
  const Shape& s = type(xp).shape;
  ValueIds in{xp, w, h0, c0};
  if (sync >= 0) in.push_back(sync);
  return add(OpKind::Lstm, in, {type(xp).dtype, Shape{s[0], s[1], s[2] / 4 * 6}}, a);
}

ValueId Builder::lstm_grad(ValueId p, ValueId w, ValueId c0, ValueId dp, const LstmAttrs& a,
                           ValueId sync) {
  EMBER_REQUIRE(a.mode == kLstmGrad, "lstm", "lstm_grad takes the gradient mode");
  check_lstm(*this, p, 6, w, c0, dp, sync);
  EMBER_REQUIRE(
      type(dp).shape == type(p).shape, "lstm",
      "the gradient " + type(dp).to_string() + " does not fit the states " + type(p).to_string());
  const Shape& s = type(p).shape;
  ValueIds in{p, w, c0, dp};
  if (sync >= 0) in.push_back(sync);
  return add(OpKind::Lstm, in, {type(p).dtype, Shape{s[0], s[1] + 1, s[2] / 6 * 4}}, a);
}

}  // namespace ember::ir
