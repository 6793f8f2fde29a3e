#pragma once
// The closed set of primitives. Everything the frontend offers lowers to these; autodiff and the
// fuser need rules only for them.
#include <cstdint>
#include <variant>
#include <vector>

#include "ir/shape.h"

namespace ember::ir {

enum class OpKind : uint8_t {
  Input,       // a materialized buffer handed to the graph (slot index)
  Full,        // constant fill
  Iota,        // index along one axis
  Random,      // counter-based (Philox) random numbers, recomputable from seed + offset
  Unary,       // elementwise, one input
  Binary,      // elementwise, two inputs, NumPy broadcasting over equal ranks
  Where,       // cond ? a : b with broadcasting
  Cast,        // dtype conversion
  Reduce,      // over one axis, keeps it with size 1
  Reshape,     // view
  Permute,     // view
  Expand,      // view: size-1 dims broadcast to a larger size
  Slice,       // view: start and positive step per dim
  Flip,        // view
  Pad,         // constant padding before/after each dim
  Concat,      // along one axis
  Matmul,      // batched, broadcasting over batch dims
  Gather,      // out[.., i, ..] = x[.., idx[.., i, ..], ..] along one axis
  ScatterAdd,  // x with values added at idx along one axis
  Sort,        // stable sort along one axis: values or indices
  Conv,        // grouped N-d cross-correlation: x [N, C, *S], w [O, C / groups, *K] -> [N, O, *OS]
  Collective,  // communication with the other ranks of a group (all-reduce, broadcast, ...)
  Attention,   // softmax(q k^T * scale [causal]) v over [B, H, S, D] (ir/attention_compose.h)
  Lstm,        // an LSTM layer's recurrence over a sequence (ir/lstm_compose.h)
};
inline constexpr int kOpKindCount = 24;

enum class UnaryFn : uint8_t {
  Neg,
  Abs,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Sin,
  Cos,
  Tan,
  Tanh,
  Sinh,
  Cosh,
  Erf,
  Floor,
  Ceil,
  Round,
  Recip,
  Sign,
  LogicalNot,
  BitwiseNot,
  IsNan,
  IsInf,
};
inline constexpr int kUnaryFnCount = 22;

enum class BinaryFn : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  Pow,
  Max,
  Min,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
};
inline constexpr int kBinaryFnCount = 21;

enum class ReduceFn : uint8_t { Sum, Prod, Max, Min, ArgMax, ArgMin };
inline constexpr int kReduceFnCount = 6;

enum class RandomDist : uint8_t { Uniform, Normal, Bernoulli };

// A scalar that keeps integers exact: `is_int` selects which field holds the value.
struct Scalar {
  double f = 0;
  int64_t i = 0;
  bool is_int = false;
  static Scalar from_double(double v) { return {v, static_cast<int64_t>(v), false}; }
  static Scalar from_int(int64_t v) { return {static_cast<double>(v), v, true}; }
  double as_double() const { return is_int ? static_cast<double>(i) : f; }
  int64_t as_int() const { return is_int ? i : static_cast<int64_t>(f); }
};

// How the generic code treats an attribute field (see ir/attrs.h): every attribute struct
// lists its fields once, as member pointers in `fields`, and hashing, comparison, printing, layout
// fingerprints and scalar patching all read that list.
enum class Role : uint8_t {
  Key,     // structure: hashed, compared, fingerprinted (axes, functions, flags)
  Size,    // a size-like value: hashed by its equality class like a dim, compared
  Extent,  // a concrete offset or amount (slice starts, pads): compared and fingerprinted only
  Scalar,  // a runtime value kernels read as parameter words (fill values, RNG seeds): compared
           // bit for bit (NodeMatch::OtherScalars) and patched; only an ir::Scalar's kind (int
           // or float) is structure
};

struct NoAttrs {
  template <class F>
  static void fields(F&&) {}
};
struct InputAttrs {
  int slot;
  template <class F>
  static void fields(F&& f) {
    f("slot", &InputAttrs::slot, Role::Key);
  }
};
struct FullAttrs {
  Scalar value;
  template <class F>
  static void fields(F&& f) {
    f("value", &FullAttrs::value, Role::Scalar);
  }
};
struct IotaAttrs {
  int axis;
  template <class F>
  static void fields(F&& f) {
    f("axis", &IotaAttrs::axis, Role::Key);
  }
};
struct RandomAttrs {
  RandomDist dist;
  double a, b;  // kernels read them as f32
  uint64_t seed, offset;
  template <class F>
  static void fields(F&& f) {
    f("dist", &RandomAttrs::dist, Role::Key);
    f("a", &RandomAttrs::a, Role::Scalar);
    f("b", &RandomAttrs::b, Role::Scalar);
    f("seed", &RandomAttrs::seed, Role::Scalar);
    f("offset", &RandomAttrs::offset, Role::Scalar);
  }
};
struct UnaryAttrs {
  UnaryFn fn;
  template <class F>
  static void fields(F&& f) {
    f("fn", &UnaryAttrs::fn, Role::Key);
  }
};
struct BinaryAttrs {
  BinaryFn fn;
  template <class F>
  static void fields(F&& f) {
    f("fn", &BinaryAttrs::fn, Role::Key);
  }
};
struct ReduceAttrs {
  ReduceFn fn;
  int axis;
  template <class F>
  static void fields(F&& f) {
    f("fn", &ReduceAttrs::fn, Role::Key);
    f("axis", &ReduceAttrs::axis, Role::Key);
  }
};
struct PermuteAttrs {
  std::vector<int> perm;
  template <class F>
  static void fields(F&& f) {
    f("perm", &PermuteAttrs::perm, Role::Key);
  }
};
struct SliceAttrs {
  std::vector<int64_t> starts, steps;
  template <class F>
  static void fields(F&& f) {
    f("starts", &SliceAttrs::starts, Role::Extent);
    f("steps", &SliceAttrs::steps, Role::Size);
  }
};
struct FlipAttrs {
  std::vector<int> axes;
  template <class F>
  static void fields(F&& f) {
    f("axes", &FlipAttrs::axes, Role::Key);
  }
};
struct PadAttrs {
  std::vector<int64_t> before, after;
  Scalar value;
  template <class F>
  static void fields(F&& f) {
    f("before", &PadAttrs::before, Role::Extent);
    f("after", &PadAttrs::after, Role::Extent);
    f("value", &PadAttrs::value, Role::Scalar);
  }
};
struct AxisAttrs {  // Concat, Gather, ScatterAdd
  int axis;
  template <class F>
  static void fields(F&& f) {
    f("axis", &AxisAttrs::axis, Role::Key);
  }
};
struct SortAttrs {
  int axis;
  bool descending;
  bool indices;
  template <class F>
  static void fields(F&& f) {
    f("axis", &SortAttrs::axis, Role::Key);
    f("descending", &SortAttrs::descending, Role::Key);
    f("indices", &SortAttrs::indices, Role::Key);
  }
};

// Per spatial dim: out[o] reads in[o * stride - pad_before + k * dilation] (zero outside), so
// OS = (S + pad_before + pad_after - dilation * (K - 1) - 1) / stride + 1. Transposed
// convolutions and both gradients are written as this op (ir/vjp.cc, frontend/module_conv.cc).
// Every field is structure: kernels index with them as constants.
struct ConvAttrs {
  std::vector<int64_t> stride, pad_before, pad_after, dilation;
  int groups = 1;
  template <class F>
  static void fields(F&& f) {
    f("stride", &ConvAttrs::stride, Role::Key);
    f("pad_before", &ConvAttrs::pad_before, Role::Key);
    f("pad_after", &ConvAttrs::pad_after, Role::Key);
    f("dilation", &ConvAttrs::dilation, Role::Key);
    f("groups", &ConvAttrs::groups, Role::Key);
  }
};

enum class CollectiveKind : uint8_t { AllReduce, Broadcast, AllGather, ReduceScatter };
enum class CollectiveReduce : uint8_t { Sum, Mean, Max, Min, Prod };

// A collective over the ranks of a communicator (runtime/collectives.h registers them by id):
// all-reduce and broadcast keep the shape, all-gather multiplies dim 0 by the ranks,
// reduce-scatter divides it. It runs where the plan puts it, after the kernels computing its
// operand, and every rank must run the same collectives in the same order: the planner keeps
// their recorded order (jit/plan/plan.cc).
struct CollectiveAttrs {
  CollectiveKind kind = CollectiveKind::AllReduce;
  CollectiveReduce reduce = CollectiveReduce::Sum;  // all-reduce and reduce-scatter
  int root = 0;                                     // broadcast
  int communicator = 0;                             // runtime::communicator(id)
  int ranks = 1;                                    // the group's size (shapes depend on it)
  template <class F>
  static void fields(F&& f) {
    f("kind", &CollectiveAttrs::kind, Role::Key);
    f("reduce", &CollectiveAttrs::reduce, Role::Key);
    f("root", &CollectiveAttrs::root, Role::Key);
    f("communicator", &CollectiveAttrs::communicator, Role::Key);
    f("ranks", &CollectiveAttrs::ranks, Role::Key);
  }
};

// Scaled dot-product attention: q [B, H, Sq, D], k [B, Hk, Sk, D], v [B, Hk, Sk, Dv] of one
// floating dtype, H a multiple of Hk (query head h reads key/value head h / (H / Hk)) ->
// [B, H, Sq, Dv] in that dtype; scores softmax(q k^T * scale) normalised in f32 (at least).
// Causal: key j is hidden from query i when j > i + Sk - Sq; a query that sees no key gives 0.
// Fused kernels where a family has one (kernels/attention), the composite elsewhere.
// The backward's nodes are the same op in other modes: kLse, the log-sum-exp of each query's
// scaled scores ([B, H, Sq, 1], f32 or f64); from (q, k, v, dout, lse, delta = rowsum(dout o out)),
// kGradQ dq ([B, H, Sq, D]) and kGradKV dk and dv per query head, packed along dim 0
// ([2B, H, Sk, D], needs Dv == D), which the gradient sums over each group of heads.
enum AttentionMode : int { kAttentionOutput = 0, kAttentionLse, kAttentionGradQ, kAttentionGradKV };

struct AttentionAttrs {
  double scale = 1.0;
  bool causal = false;
  int mode = kAttentionOutput;
  template <class F>
  static void fields(F&& f) {
    f("scale", &AttentionAttrs::scale, Role::Key);
    f("causal", &AttentionAttrs::causal, Role::Key);
    f("mode", &AttentionAttrs::mode, Role::Key);
  }
};

// The recurrence of a long short-term memory layer (gates i, f, g, o side by side, PyTorch's
// order), one node for the whole sequence so that the recorded graph does not grow with it.
// Mode kLstmForward: from the input's part of the gates xp [B, T, 4H] (both biases included),
// the recurrent weight w [H, 4H] and the initial states h0, c0 [B, H], all of one floating dtype,
// the packed states P [B, T, 6H]: per step the gates i, f, g, o after their nonlinearities, then
// the cell c and the hidden state h, where
//   a = xp[t] + h_prev w, c = f c_prev + i g, h = o tanh(c)
// and the steps run from t = 0 (from T - 1 when reversed). Mode kLstmGrad: from (P, w, c0, dP),
// dP the gradient of P, the gradients R [B, T + 1, 4H]: rows t < T the gradients of the gates
// before their nonlinearities (= of xp[t]), row T holds dh0 in columns [0, H) and dc0 in [H, 2H),
// zeros after. The gradient of w is sum_t h_prev^T R[t] (ir/vjp.cc). A trailing int32 [2]
// operand, zeros, may follow either mode's operands: the fused kernel's grid barrier
// (kernels/rnn), which it leaves zero; it does not change the result.
enum LstmMode : int { kLstmForward = 0, kLstmGrad };

struct LstmAttrs {
  bool reverse = false;
  int mode = kLstmForward;
  template <class F>
  static void fields(F&& f) {
    f("reverse", &LstmAttrs::reverse, Role::Key);
    f("mode", &LstmAttrs::mode, Role::Key);
  }
};

using Attrs =
    std::variant<NoAttrs, InputAttrs, FullAttrs, IotaAttrs, RandomAttrs, UnaryAttrs, BinaryAttrs,
                 ReduceAttrs, PermuteAttrs, SliceAttrs, FlipAttrs, PadAttrs, AxisAttrs, SortAttrs,
                 ConvAttrs, CollectiveAttrs, AttentionAttrs, LstmAttrs>;

const char* op_name(OpKind op);
const char* unary_name(UnaryFn fn);
const char* binary_name(BinaryFn fn);
const char* reduce_name(ReduceFn fn);
const char* dist_name(RandomDist d);
const char* collective_name(CollectiveKind k);

// Elementwise ops: ones the fuser may chain without changing the index space.
inline bool is_elementwise(OpKind op) {
  return op == OpKind::Unary || op == OpKind::Binary || op == OpKind::Where || op == OpKind::Cast;
}
inline bool is_comparison(BinaryFn fn) { return fn >= BinaryFn::Eq && fn <= BinaryFn::Ge; }

}  // namespace ember::ir
