#include "kernels/row/family.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "jit/codegen/cpp_source.h"
#include "kernels/row/split_reductions.h"
#include "kernels/row/tuning.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::ReduceFn;
using ir::UnaryFn;
using ir::ValueId;

// Variant bit of the thread-per-row kernels (RowChoice::thread_rows); the low bits hold the
// workgroup either way.
constexpr Variant kThreadRows = Variant{1} << 32;

// Rows up to this many elements per thread are kept in registers across a row kernel's passes
// (read from memory once); 16 x 256 threads covers rows of 4096, the common hidden sizes.
constexpr int kRowCacheSteps = 16;
// The CPU target (a workgroup of one thread) keeps rows up to this long in arrays on the stack
// (32 KiB each in f32, within L1 and L2): not its loads, which its caches serve, but values a
// later pass would compute again (see cached_values).
constexpr int kCpuRowCacheSteps = 8192;
// The CPU target stores an f32 output this large or larger past the caches (stream_rows).
constexpr int64_t kCpuStreamBytes = int64_t{8} << 20;

}  // namespace

int row_cache_steps(int64_t row_length, int workgroup) {
  // Rounded up to a power of two so that nearby lengths share a kernel.
  int steps = 1;
  while (static_cast<int64_t>(steps) * workgroup < row_length) steps *= 2;
  return steps <= (workgroup == 1 ? kCpuRowCacheSteps : kRowCacheSteps) ? steps : 0;
}

namespace {

CType accumulator_type(ReduceFn fn, DType t) {
  CType c = compute_type(t);
  if (c == CType::Bool) return CType::Uint;
  (void)fn;
  return c;
}

int identity(Emitter& e, ReduceFn fn, CType t) {
  bool is_max = fn == ReduceFn::Max || fn == ReduceFn::ArgMax;
  switch (fn) {
    case ReduceFn::Sum:
      return e.cast(e.const_u(0), t);
    case ReduceFn::Prod:
      return e.cast(e.const_u(1), t);
    default:
      break;
  }
  switch (t) {
    case CType::Float:
    case CType::Double:
      return e.const_f(is_max ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity(),
                       t);
    case CType::Int:
      return e.const_i(
          is_max ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max(), t);
    case CType::Int64:
      return e.const_i(
          is_max ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max(), t);
    default:
      return e.const_u(is_max ? 0 : 0xffffffffu);
  }
}

// Whether x should replace the running extreme acc (max/min with NaN winning, as the CPU does).
int better(Emitter& e, bool is_max, int x, int acc) {
  int c = e.bin(is_max ? BinaryFn::Gt : BinaryFn::Lt, x, acc);
  if (!is_floating(e.type_of(x))) return c;
  int x_nan = e.un(UnaryFn::IsNan, x);
  int acc_nan = e.un(UnaryFn::IsNan, acc);
  return e.bin(BinaryFn::LogicalOr, c,
               e.bin(BinaryFn::LogicalAnd, x_nan, e.un(UnaryFn::LogicalNot, acc_nan)));
}

int combine(Emitter& e, ReduceFn fn, int acc, int x) {
  switch (fn) {
    case ReduceFn::Sum:
      return e.bin(BinaryFn::Add, acc, x);
    case ReduceFn::Prod:
      return e.bin(BinaryFn::Mul, acc, x);
    case ReduceFn::Max:  // NaN wins, as in the binary op (arg-reductions use better())
      return e.bin(BinaryFn::Max, acc, x);
    default:
      return e.bin(BinaryFn::Min, acc, x);
  }
}

// The reductions' inputs that something besides a reduction uses: the values a later pass of
// the row would compute again (softmax's exp(x - max), summed, then divided by the sum).
std::set<ValueId> reused_reduction_inputs(const ir::Graph& g, const KernelPlan& kp) {
  std::set<ValueId> inputs, reused;
  for (ValueId r : kp.reductions) {
    ValueId in = g.node(r).inputs[0];
    if (g.node(in).op != ir::OpKind::Input) inputs.insert(in);
  }
  for (const ir::Node& n : g.nodes()) {
    if (n.op == ir::OpKind::Reduce) continue;
    for (ValueId i : n.inputs)
      if (inputs.count(i)) reused.insert(i);
  }
  for (ValueId o : kp.outputs)
    if (inputs.count(o)) reused.insert(o);
  return reused;
}

// Combines the workgroup's partial values of variable `var` after a lanes loop (SOp::Reduce;
// SOp::ArgReduce with its index variable `var2`); `code` as Stmt::code (kPlainExtreme).
void push_reduce(Emitter& e, SOp op, int var, int var2, ReduceFn fn, CType t, int code = 0) {
  Stmt s{op};
  s.var = var;
  s.var2 = var2;
  s.fn = fn;
  s.type = t;
  s.code = code;
  e.desc().body.push_back(s);
}

// Reduction r over the current row: its elements visited by a `lanes` loop (the workgroup's
// threads together, or one thread alone) of `len` steps, then combined across the workgroup
// when its threads shared the row.
template <class FullIndex>
void reduce_row(const ir::Graph& g, Emitter& e, ValueId r, SOp lanes, int len,
                const FullIndex& full_index) {
  ReduceFn fn = g.node(r).get<ir::ReduceAttrs>().fn;
  ValueId in = g.node(r).inputs[0];
  bool arg = fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin;
  ReduceFn value_fn = fn == ReduceFn::ArgMax   ? ReduceFn::Max
                      : fn == ReduceFn::ArgMin ? ReduceFn::Min
                                               : fn;
  CType acc_t = accumulator_type(value_fn, g.type(in).dtype);
  int acc = e.new_var(acc_t, identity(e, value_fn, acc_t));
  int acc_i = arg ? e.new_var(CType::Uint, e.const_u(0)) : -1;
  int i = e.begin_for(lanes, len);
  int x = e.cast(e.value(in, full_index(i)), acc_t);
  int a = e.var(acc, acc_t);
  if (arg) {
    // Lanes visit indices in increasing order, so a strict comparison keeps the first extreme.
    int take = better(e, fn == ReduceFn::ArgMax, x, a);
    e.assign(acc_i, e.select(take, i, e.var(acc_i, CType::Uint)));
    e.assign(acc, e.select(take, x, a));
  } else {
    e.assign(acc, combine(e, fn, a, x));
  }
  e.end();
  if (lanes == SOp::ForLanes) {
    push_reduce(e, arg ? SOp::ArgReduce : SOp::Reduce, acc, acc_i, value_fn, acc_t);
  }
  CType out_t = compute_type(g.type(r).dtype);
  int result = arg ? e.cast(e.var(acc_i, CType::Uint), out_t) : e.cast(e.var(acc, acc_t), out_t);
  e.provide(r, result);
}

// The outputs of a CPU row kernel (one thread per row, rows contiguous in memory) that go past
// the caches: f32 ones of kCpuStreamBytes or more, each row staged in an array on the stack
// (within L1) and then streamed to memory (Emitter::stream_store).
std::vector<ValueId> stream_rows(const ir::Graph& g, Emitter& e, const KernelPlan& kp, SOp lanes,
                                 const std::vector<ValueId>& full_outputs) {
  std::vector<ValueId> out;
  const int64_t len = kp.shape[kp.axis];
  if (!cpu_stream_stores() || lanes != SOp::ForLanes || e.desc().workgroup_size != 1 ||
      kp.axis != kp.shape.rank() - 1 || row_cache_steps(len, 1) == 0) {
    return out;
  }
  for (ValueId o : full_outputs) {
    const auto& t = g.type(o);
    if (t.dtype == DType::F32 && t.shape.numel() * 4 >= kCpuStreamBytes) out.push_back(o);
  }
  return out;
}

// The kernel's stored values of the current row: those over the whole row by a `lanes` loop,
// those of the row itself once (by the workgroup's first thread when it shares the row).
template <class FullIndex>
void store_row_outputs(const ir::Graph& g, Emitter& e, const KernelPlan& kp, SOp lanes, int len,
                       int row, const Index& row_idx, const FullIndex& full_index) {
  Shape reduced = kp.shape;
  reduced[kp.axis] = 1;
  std::vector<ValueId> full_outputs, row_outputs;
  for (ValueId o : kp.outputs)
    (g.type(o).shape == kp.shape ? full_outputs : row_outputs).push_back(o);
  // A row kernel whose outputs are all reductions may have kp.shape == reduced (axis of size 1).
  if (kp.shape == reduced) {
    row_outputs.insert(row_outputs.end(), full_outputs.begin(), full_outputs.end());
    full_outputs.clear();
  }
  if (!full_outputs.empty()) {
    std::vector<ValueId> streamed = stream_rows(g, e, kp, lanes, full_outputs);
    std::vector<int> stage;  // per streamed output, its row's array
    int start = -1;          // the row's first element
    if (!streamed.empty()) {
      Index f0 = full_index(e.const_u(0));
      start = e.linear(f0);
      for (size_t s = 0; s < streamed.size(); ++s) {
        stage.push_back(e.declare_array(CType::Float, row_cache_steps(kp.shape[kp.axis], 1)));
      }
    }
    int i = e.begin_for(lanes, len);
    Index f = full_index(i);
    int lin = e.linear(f);
    for (ValueId o : full_outputs) {
      auto at = std::find(streamed.begin(), streamed.end(), o);
      if (at == streamed.end()) {
        e.store(o, lin, e.value(o, f));
      } else {
        e.array_store(stage[at - streamed.begin()], i, e.value(o, f));
      }
    }
    e.end();
    for (size_t s = 0; s < streamed.size(); ++s) e.stream_store(streamed[s], start, stage[s], len);
  }
  if (row_outputs.empty()) return;
  const bool shared = lanes == SOp::ForLanes;
  if (shared) e.begin_if(e.bin(BinaryFn::Eq, e.builtin(Builtin::LocalId), e.const_u(0)));
  for (ValueId o : row_outputs) {
    // A row's value may also be stored as a vector of rows (another shape of as many elements).
    const Shape& shape = g.type(o).shape;
    Index idx = shape == reduced ? row_idx : Index{shape, {}, row};
    e.store(o, row, e.value(o, idx));
  }
  if (shared) e.end();
}

// The current row of a row kernel: its index over the reduced shape (row variable `row`), and
// the element i of it over the kernel's shape (`row_lane`: for the row cache).
struct RowIndex {
  Index row;
  std::function<Index(int)> element;
};

RowIndex row_index(Emitter& e, const KernelPlan& kp, const Shape& reduced, int row, bool row_lane) {
  Index row_idx{reduced, std::vector<int>(reduced.rank(), -1), row};
  for (int d = 0; d < reduced.rank(); ++d) row_idx.dims[d] = e.dim(row_idx, d);
  auto element = [&kp, dims = row_idx.dims, row_lane](int i) {
    Index f{kp.shape, dims, -1};
    f.dims[kp.axis] = i;
    f.row_lane = row_lane;
    return f;
  };
  return {row_idx, element};
}

// The CPU target's rows as a pipeline, where one thread takes its rows in order: the next row's
// first reduction is taken inside this row's last reduction loop, whose chunks also stream the
// previous row's outputs out (past the caches, from a stage the output loop fills after the
// chunks). Each row's loads from memory and the previous row's stores then overlap this row's
// arithmetic instead of each pass waiting for memory in turn (scripts/kernel-lab/cpu_softmax).
// For kernels whose outputs are all streamed full rows, with two or more f32 reductions, the
// first a max or min, the last a sum: the softmax kind, whose last loop's exp is heavy enough
// to hide memory behind. (A layer norm, first a sum, measured slower pipelined: its passes are
// light, and the pipeline's stage and chunked reductions cost more than the overlap gains.)
constexpr int kPipelineChunk = 512;

bool pipelines_rows(const ir::Graph& g, Emitter& e, const KernelPlan& kp) {
  if (e.desc().workgroup_size != 1 || !kp.totals.empty() || kp.reductions.size() < 2) return false;
  if (row_cache_steps(kp.shape[kp.axis], 1) == 0 || kp.outputs.empty()) return false;
  const ReduceFn first = g.node(kp.reductions.front()).get<ir::ReduceAttrs>().fn;
  const ReduceFn last = g.node(kp.reductions.back()).get<ir::ReduceAttrs>().fn;
  if (first != ReduceFn::Max && first != ReduceFn::Min) return false;
  if (last != ReduceFn::Sum) return false;
  for (ValueId r : {kp.reductions.front(), kp.reductions.back()}) {
    if (compute_type(g.type(g.node(r).inputs[0]).dtype) != CType::Float) return false;
  }
  for (ValueId o : kp.outputs)
    if (g.type(o).shape != kp.shape) return false;
  return stream_rows(g, e, kp, SOp::ForLanes, kp.outputs).size() == kp.outputs.size();
}

struct RowPipeline {
  ValueId first, last;
  ReduceFn first_fn;
  int len;
  std::vector<int> stages;  // per output, the previous row's values
  int prev_start, have_prev;
};

// The first reduction of a row by a plain loop, combined into variable `acc`.
template <class FullIndex>
void first_reduction_alone(const ir::Graph& g, Emitter& e, const RowPipeline& p, int acc,
                           const FullIndex& element) {
  int j = e.begin_for(SOp::ForSeq, p.len);
  int x = e.cast(e.value(g.node(p.first).inputs[0], element(j)), CType::Float);
  e.assign(acc, combine(e, p.first_fn, e.var(acc, CType::Float), x));
  e.end();
}

// The last reduction of the current row in chunks; each chunk also streams that chunk of the
// previous row's outputs, then takes the next row's first reduction over it (into
// `next_first`). The max or min there is the plain comparison, which vectorises beside the sum
// (the NaN-winning one keeps GCC 12's loop scalar); a sum of the same elements tells whether
// one was NaN (or infinities of both signs), and then the row's is taken again by a plain loop.
int last_reduction_in_chunks(const ir::Graph& g, Emitter& e, const KernelPlan& kp,
                             const RowPipeline& p, const RowIndex& row, const RowIndex& next,
                             int next_first) {
  const CType f32 = CType::Float;
  ValueId in_first = g.node(p.first).inputs[0], in_last = g.node(p.last).inputs[0];
  int acc = e.new_var(f32, identity(e, ReduceFn::Sum, f32));
  int probe = e.new_var(f32, identity(e, ReduceFn::Sum, f32));
  int chunks = e.bin(BinaryFn::Div, e.bin(BinaryFn::Add, p.len, e.const_u(kPipelineChunk - 1)),
                     e.const_u(kPipelineChunk));
  int c = e.begin_for(SOp::ForSeq, chunks);
  int from = e.bin(BinaryFn::Mul, c, e.const_u(kPipelineChunk));
  // (A chunk of a known length where the row is whole chunks: the compiler then drops the
  // vector loop's remainder.)
  int to = e.bin(BinaryFn::Add, from, e.const_u(kPipelineChunk));
  if (kp.shape[kp.axis] % kPipelineChunk != 0) to = e.umin(to, p.len);
  e.begin_if(e.bin(BinaryFn::Ne, e.var(p.have_prev, CType::Uint), e.const_u(0)));
  for (size_t s = 0; s < kp.outputs.size(); ++s) {
    e.stream_store(kp.outputs[s], e.bin(BinaryFn::Add, e.var(p.prev_start, CType::Uint), from),
                   p.stages[s], e.bin(BinaryFn::Sub, to, from), from);
  }
  e.end();
  int part = e.new_var(f32, identity(e, ReduceFn::Sum, f32));
  int part_first = e.new_var(f32, identity(e, p.first_fn, f32));
  int part_probe = e.new_var(f32, identity(e, ReduceFn::Sum, f32));
  int i = e.begin_lanes_from(from, to);
  int x = e.cast(e.value(in_last, row.element(i)), f32);
  e.assign(part, e.bin(BinaryFn::Add, e.var(part, f32), x));
  int y = e.cast(e.value(in_first, next.element(i)), f32);
  int pf = e.var(part_first, f32);
  BinaryFn keep = p.first_fn == ReduceFn::Max ? BinaryFn::Gt : BinaryFn::Lt;
  e.assign(part_first, e.select(e.bin(keep, pf, y), pf, y));
  e.assign(part_probe, e.bin(BinaryFn::Add, e.var(part_probe, f32), y));
  e.end();
  push_reduce(e, SOp::Reduce, part, -1, ReduceFn::Sum, f32);
  push_reduce(e, SOp::Reduce, part_first, -1, p.first_fn, f32, kPlainExtreme);
  push_reduce(e, SOp::Reduce, part_probe, -1, ReduceFn::Sum, f32);
  e.assign(acc, e.bin(BinaryFn::Add, e.var(acc, f32), e.var(part, f32)));
  e.assign(next_first, combine(e, p.first_fn, e.var(next_first, f32), e.var(part_first, f32)));
  e.assign(probe, e.bin(BinaryFn::Add, e.var(probe, f32), e.var(part_probe, f32)));
  e.end();
  e.begin_if(e.un(UnaryFn::IsNan, e.var(probe, f32)));
  e.assign(next_first, identity(e, p.first_fn, f32));
  first_reduction_alone(g, e, p, next_first, next.element);
  e.end();
  return acc;
}

void lower_row_pipelined(const ir::Graph& g, Emitter& e, const KernelPlan& kp,
                         KernelGeometry& out) {
  const CType f32 = CType::Float;
  Shape reduced = kp.shape;
  reduced[kp.axis] = 1;
  RowPipeline p;
  p.first = kp.reductions.front();
  p.last = kp.reductions.back();
  p.first_fn = g.node(p.first).get<ir::ReduceAttrs>().fn;
  const int steps = row_cache_steps(kp.shape[kp.axis], 1);
  e.enable_row_cache(steps, /*loads=*/false);
  e.cache_row_values(reused_reduction_inputs(g, kp));
  int rows = e.numel_param(reduced, "rows");
  p.len = e.size_param(kp.shape, kp.axis, "row");
  // What crosses rows: the next row's first reduction, and the previous row's outputs.
  int carry = e.new_var(f32, identity(e, p.first_fn, f32));
  int have_carry = e.new_var(CType::Uint, e.const_u(0));
  // A single output computed from the last reduction's cached input (softmax: exp(x - max) /
  // sum) is staged in place in that value's row array; other outputs get arrays of their own.
  const std::set<ValueId> cached = reused_reduction_inputs(g, kp);
  const ValueId in_last = g.node(p.last).inputs[0];
  const bool in_place =
      kp.outputs.size() == 1 && kp.reductions.size() == 2 && cached == std::set<ValueId>{in_last};
  if (!in_place) {
    for (size_t s = 0; s < kp.outputs.size(); ++s) p.stages.push_back(e.declare_array(f32, steps));
  }
  p.prev_start = e.new_var(CType::Uint, e.const_u(0));
  p.have_prev = e.new_var(CType::Uint, e.const_u(0));
  // Row arrays before the row loop: the in-place stage keeps a row's outputs into the next.
  const size_t before_rows = e.desc().body.size();
  int row = e.begin_for(SOp::ForRows, rows);
  e.mark_row_scope(before_rows);
  RowIndex ri = row_index(e, kp, reduced, row, /*row_lane=*/true);
  // row + 1, or row itself at the last row: a step between constants (a select between indices
  // would read as index clamping and keep the loops scalar: Cpp::index_math).
  int step = e.select(e.bin(BinaryFn::Lt, e.bin(BinaryFn::Add, row, e.const_u(1)), rows),
                      e.const_u(1), e.const_u(0));
  RowIndex ni = row_index(e, kp, reduced, e.bin(BinaryFn::Add, row, step), /*row_lane=*/false);
  // The first reduction: carried from the previous row, or (a thread's first row) taken now.
  int first = e.new_var(f32, e.var(carry, f32));
  e.begin_if(e.bin(BinaryFn::Eq, e.var(have_carry, CType::Uint), e.const_u(0)));
  first_reduction_alone(g, e, p, first, ri.element);
  e.end();
  e.provide(p.first, e.cast(e.var(first, f32), compute_type(g.type(p.first).dtype)));
  // (Its row's outputs stream out of it in a chunk before the last reduction's loop refills
  // that chunk; the output loop reads each element before it writes it.)
  if (in_place) p.stages.push_back(e.reserve_row_array(in_last, f32));
  for (size_t k = 1; k + 1 < kp.reductions.size(); ++k)
    reduce_row(g, e, kp.reductions[k], SOp::ForLanes, p.len, ri.element);
  int next_first = e.new_var(f32, identity(e, p.first_fn, f32));
  int last = last_reduction_in_chunks(g, e, kp, p, ri, ni, next_first);
  e.provide(p.last, e.cast(e.var(last, f32), compute_type(g.type(p.last).dtype)));
  e.assign(carry, e.var(next_first, f32));
  e.assign(have_carry, e.const_u(1));
  // This row's outputs into the stage (its previous contents went out in the chunks).
  int i = e.begin_for(SOp::ForLanes, p.len);
  Index f = ri.element(i);
  for (size_t s = 0; s < kp.outputs.size(); ++s)
    e.array_store(p.stages[s], i, e.value(kp.outputs[s], f));
  e.end();
  Index f0 = ri.element(e.const_u(0));
  e.assign(p.prev_start, e.linear(f0));
  e.assign(p.have_prev, e.const_u(1));
  e.end();
  // The last row's outputs.
  e.begin_if(e.bin(BinaryFn::Ne, e.var(p.have_prev, CType::Uint), e.const_u(0)));
  for (size_t s = 0; s < kp.outputs.size(); ++s)
    e.stream_store(kp.outputs[s], e.var(p.prev_start, CType::Uint), p.stages[s], p.len);
  e.end();
  out.work_items = static_cast<uint64_t>(reduced.numel());
  out.per_row = true;
}

void lower_row(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  if (pipelines_rows(g, e, kp)) return lower_row_pipelined(g, e, kp, out);
  Shape reduced = kp.shape;
  reduced[kp.axis] = 1;
  const int workgroup = static_cast<int>(e.desc().workgroup_size);
  int steps = row_cache_steps(kp.shape[kp.axis], workgroup);
  if (steps > 0) e.enable_row_cache(steps, /*loads=*/workgroup > 1);
  if (steps > 0 && workgroup == 1) e.cache_row_values(reused_reduction_inputs(g, kp));
  int rows = e.numel_param(reduced, "rows");
  int len = e.size_param(kp.shape, kp.axis, "row");
  int row = e.begin_for(SOp::ForRows, rows);
  RowIndex ri = row_index(e, kp, reduced, row, /*row_lane=*/true);
  for (ValueId r : kp.reductions) reduce_row(g, e, r, SOp::ForLanes, len, ri.element);
  store_row_outputs(g, e, kp, SOp::ForLanes, len, row, ri.row, ri.element);
  e.end();
  out.work_items = static_cast<uint64_t>(reduced.numel());
  out.per_row = true;
}

bool is_total(const KernelPlan& kp, ValueId r) {
  return std::find(kp.totals.begin(), kp.totals.end(), r) != kp.totals.end();
}

// One thread per row: a grid-stride loop of threads over the rows, each running its row's
// passes alone (no workgroup reduction, no row cache). With totals (reductions over all rows)
// the kernel is a single workgroup: each thread accumulates its rows' values, the workgroup
// combines them after the last row, and its first thread stores them and what reads them.
void lower_thread_rows(const ir::Graph& g, Emitter& e, const KernelPlan& kp, KernelGeometry& out) {
  Shape reduced = kp.shape;
  reduced[kp.axis] = 1;
  KernelPlan per_row = kp;  // the kernel without its totals and what they make
  per_row.reductions.clear();
  per_row.outputs.clear();
  for (ValueId r : kp.reductions)
    if (!is_total(kp, r)) per_row.reductions.push_back(r);
  std::vector<ValueId> after_rows;  // totals and values of their (one-element) shape
  for (ValueId o : kp.outputs) {
    (kp.totals.empty() || g.type(o).shape.numel() != 1 ? per_row.outputs : after_rows).push_back(o);
  }
  struct Total {
    ValueId r;
    ReduceFn fn;
    CType type;
    int acc;
  };
  std::vector<Total> totals;
  for (ValueId t : kp.totals) {
    ReduceFn fn = g.node(t).get<ir::ReduceAttrs>().fn;
    CType acc_t = accumulator_type(fn, g.type(g.node(t).inputs[0]).dtype);
    totals.push_back({t, fn, acc_t, e.new_var(acc_t, identity(e, fn, acc_t))});
  }
  int rows = e.numel_param(reduced, "rows");
  int len = e.size_param(kp.shape, kp.axis, "row");
  int row = e.begin_for(SOp::ForGrid, rows);
  RowIndex ri = row_index(e, kp, reduced, row, /*row_lane=*/false);
  for (ValueId r : per_row.reductions) reduce_row(g, e, r, SOp::ForSeq, len, ri.element);
  store_row_outputs(g, e, per_row, SOp::ForSeq, len, row, ri.row, ri.element);
  for (const Total& t : totals) {
    ValueId in = g.node(t.r).inputs[0];
    int x = e.cast(e.value(in, Index{g.type(in).shape, {}, row}), t.type);
    e.assign(t.acc, combine(e, t.fn, e.var(t.acc, t.type), x));
  }
  e.end();
  for (const Total& t : totals) {
    push_reduce(e, SOp::Reduce, t.acc, -1, t.fn, t.type);
    e.provide(t.r, e.cast(e.var(t.acc, t.type), compute_type(g.type(t.r).dtype)));
  }
  if (!after_rows.empty()) {
    e.begin_if(e.bin(BinaryFn::Eq, e.builtin(Builtin::LocalId), e.const_u(0)));
    int zero = e.const_u(0);
    for (ValueId o : after_rows) e.store(o, zero, e.value(o, Index{g.type(o).shape, {}, zero}));
    e.end();
  }
  // With totals: one workgroup (the CPU: one thread) takes every row.
  out.work_items = kp.totals.empty() ? static_cast<uint64_t>(reduced.numel())
                                     : static_cast<uint64_t>(e.desc().workgroup_size);
  out.per_row = false;
}

Shape reduced_shape(const Shape& s, int axis) {
  Shape r = s;
  r[axis] = 1;
  return r;
}

class RowFamily final : public Family {
 public:
  const char* name() const override { return "row"; }
  bool anchors(const ir::Node& n) const override { return n.op == ir::OpKind::Reduce; }
  KernelPlan start(const ir::Graph& g, ValueId v) const override {
    KernelPlan kp;
    kp.shape = g.type(g.node(v).inputs[0]).shape;
    kp.axis = g.node(v).get<ir::ReduceAttrs>().axis;
    kp.reductions = {v};
    return kp;
  }
  Shape index_space(const ir::Graph& g, const KernelPlan& kp) const override {
    return g.type(g.node(kp.reductions.front()).inputs[0]).shape;
  }
  Fusion fusion() const override { return Fusion::Epilogue; }
  std::vector<Shape> epilogue_shapes(const KernelPlan& kp) const override {
    std::vector<Shape> shapes{kp.shape, reduced_shape(kp.shape, kp.axis)};
    shapes.insert(shapes.end(), kp.total_shapes.begin(), kp.total_shapes.end());
    return shapes;
  }
  bool takes_anchor(const ir::Graph& g, const KernelPlan& kp, ValueId v) const override {
    const ir::Node& n = g.node(v);
    if (n.op != ir::OpKind::Reduce) return false;
    return row_reduction(g, kp, v) || takes_total(g, kp, v);
  }
  bool takes_as_total(const ir::Graph& g, const KernelPlan& kp, ValueId v) const override {
    return !row_reduction(g, kp, v) && takes_total(g, kp, v);
  }
  bool rewrites(const ir::Graph& g, const runtime::Backend& backend) const override {
    return has_long_reductions(g, splits_columns(backend));
  }
  ir::Graph rewrite(const ir::Graph& g, std::vector<ValueId>& outputs,
                    const runtime::Backend& backend,
                    std::vector<ValueId>* old_to_new) const override {
    return split_long_reductions(g, outputs, splits_columns(backend), old_to_new);
  }
  uint64_t rewrite_settings() const override { return thread_rows_allowed() ? 1 : 0; }
  // Column sums are split where thread-per-row kernels run their first pass (the GPU
  // targets; not the CPU target, whose threads split rows their own way).
  static bool splits_columns(const runtime::Backend& backend) {
    return backend.kind() != runtime::DeviceKind::Cpu && thread_rows_allowed();
  }

  // Every reduction of the kernel runs with its first reduction's workgroup.
  VariantChoice choose(const VariantContext& c, const KernelPlan& kp) const override {
    // The CPU target: a row per thread at a time.
    if (c.backend.kind() == runtime::DeviceKind::Cpu) return {1};
    if (!kp.totals.empty()) return {variant_of(kTotalsWorkgroup, true)};
    RowChoice rc = choose_row(c.g, kp.reductions.front(), c.backend);
    return {variant_of(rc.workgroup, rc.thread_rows), std::move(rc.tune_key)};
  }
  Variant tune(const VariantContext& c, const KernelPlan& kp,
               const std::function<double(Variant)>& time) const override {
    RowChoice rc = tune_row(c.g, kp.reductions.front(), c.backend,
                            [&](int wg, bool rows) { return time(variant_of(wg, rows)); });
    return variant_of(rc.workgroup, rc.thread_rows);
  }
  std::string describe(Variant v) const override {
    return absl::StrCat((v & kThreadRows) ? "thread_rows,workgroup=" : "workgroup=",
                        v & ~kThreadRows);
  }
  uint64_t specialisation(const ir::Graph&, const KernelPlan& kp) const override {
    if (!kp.totals.empty()) return 1;  // one workgroup over every row
    if (kp.variant & kThreadRows) return 0;
    return static_cast<uint64_t>(row_cache_steps(kp.shape[kp.axis], workgroup(kp)));
  }

  KernelGeometry lower(const ir::Graph& g, const Plan& plan, int kernel, const Emitter::LayoutFn&,
                       Emitter& e) const override {
    const KernelPlan& kp = plan.kernels[kernel];
    e.desc().workgroup_size = static_cast<uint32_t>(workgroup(kp));
    KernelGeometry out;
    if ((kp.variant & kThreadRows) || !kp.totals.empty()) {
      lower_thread_rows(g, e, kp, out);
    } else {
      lower_row(g, e, kp, out);
    }
    return out;
  }

 private:
  // A reduction over all rows of a kernel with up to kTotalsMaxRows rows of up to
  // kThreadRowsMaxShort elements (a loss's batch mean over its per-sample costs) joins it: the
  // kernel then runs as one workgroup of kTotalsWorkgroup threads, a row per thread.
  static constexpr int64_t kTotalsMaxRows = 4096;
  static constexpr int kTotalsWorkgroup = 256;
  // Another reduction of the kernel's rows.
  static bool row_reduction(const ir::Graph& g, const KernelPlan& kp, ValueId v) {
    const ir::Node& n = g.node(v);
    return n.get<ir::ReduceAttrs>().axis == kp.axis && g.type(n.inputs[0]).shape == kp.shape;
  }
  static bool takes_total(const ir::Graph& g, const KernelPlan& kp, ValueId v) {
    const ir::Node& n = g.node(v);
    ReduceFn fn = n.get<ir::ReduceAttrs>().fn;
    if (fn == ReduceFn::ArgMax || fn == ReduceFn::ArgMin) return false;
    const int64_t len = kp.shape[kp.axis];
    const int64_t rows = len == 0 ? 0 : kp.shape.numel() / len;
    return rows >= 2 && rows <= kTotalsMaxRows && len <= kThreadRowsMaxShort &&
           g.type(n.inputs[0]).shape.numel() == rows && n.type.shape.numel() == 1;
  }
  static Variant variant_of(int workgroup, bool thread_rows) {
    return static_cast<Variant>(workgroup) | (thread_rows ? kThreadRows : 0);
  }
  static int workgroup(const KernelPlan& kp) {
    return kp.variant > 0 ? static_cast<int>(kp.variant & ~kThreadRows) : kRowWorkgroupDefault;
  }
};

}  // namespace

const Family& row_family() {
  static const RowFamily family;
  return family;
}

}  // namespace ember::jit
