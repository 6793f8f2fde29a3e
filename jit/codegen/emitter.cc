#include "jit/codegen/emitter.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "ir/attrs.h"
#include "ir/error.h"
#include "runtime/host_convert.h"

namespace ember::jit {

using ir::BinaryFn;
using ir::OpKind;
using ir::UnaryFn;
using ir::ValueId;

CType compute_type(DType t) {
  switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      return CType::Float;
    case DType::F64:
      return CType::Double;
    case DType::I32:
      return CType::Int;
    case DType::I64:
      return CType::Int64;
    case DType::U8:
      return CType::Uint;
    case DType::Bool:
      return CType::Bool;
  }
  return CType::Float;
}

const char* ctype_name(CType t) {
  switch (t) {
    case CType::Float:
      return "float";
    case CType::Double:
      return "double";
    case CType::Int:
      return "int";
    case CType::Int64:
      return "int64";
    case CType::Uint:
      return "uint";
    case CType::Bool:
      return "bool";
  }
  return "?";
}

Emitter::Emitter(const ir::Graph& g, const std::vector<char>& stored,
                 const std::vector<int>& producer, int kernel, LayoutFn layout)
    : g_(g), stored_(stored), producer_(producer), kernel_(kernel), layout_(std::move(layout)) {
  memo_.emplace_back();
  computed_.assign(g.size(), 0);
}

// ---------------------------------------------------------------- expressions

int Emitter::expr(Expr e) {
  k_.exprs.push_back(std::move(e));
  int id = static_cast<int>(k_.exprs.size()) - 1;
  XOp op = k_.exprs[id].op;
  bool inline_expr = op == XOp::Param || op == XOp::ParamF || op == XOp::ParamD ||
                     op == XOp::ParamI64 || op == XOp::Const || op == XOp::Var ||
                     op == XOp::Builtin;
  if (!inline_expr) push_stmt({SOp::Let, id});
  return id;
}

int Emitter::const_u(uint64_t v) {
  return expr({XOp::Const, CType::Uint, static_cast<int64_t>(v)});
}
int Emitter::const_i(int64_t v, CType t) { return expr({XOp::Const, t, v}); }
int Emitter::const_f(double v, CType t) { return expr({XOp::Const, t, 0, v}); }
int Emitter::const_b(bool v) { return expr({XOp::Const, CType::Bool, v ? 1 : 0}); }

int Emitter::param_u(const std::string& key, uint32_t value) {
  auto [it, inserted] = param_slots_.try_emplace(key, static_cast<int>(params_.size()));
  if (inserted) {
    params_.push_back(value);
    k_.param_values.push_back(value);
    const bool offset = key.size() >= 4 && key.compare(key.size() - 4, 4, ":off") == 0;
    k_.param_fixed.push_back(offset ? 0 : 1);
  }
  k_.num_params = static_cast<int>(params_.size());
  return expr({XOp::Param, CType::Uint, it->second});
}

int Emitter::builtin(Builtin b) {
  return expr({XOp::Builtin, CType::Uint, static_cast<int64_t>(b)});
}
int Emitter::var(int id, CType t) { return expr({XOp::Var, t, id}); }

int Emitter::un(UnaryFn fn, int a) {
  CType t = (fn == UnaryFn::IsNan || fn == UnaryFn::IsInf) ? CType::Bool : type_of(a);
  return expr({XOp::Unary, t, static_cast<int64_t>(fn), 0, {a}});
}

FixedDivisor fixed_divisor(uint32_t d) {
  if (d == 0) return {};  // never divided by: a size-0 dim leaves nothing to run
  uint32_t l = 0;         // ceil(log2 d)
  while (l < 32 && (uint64_t{1} << l) < d) ++l;
  FixedDivisor f;
  f.magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << l) - d)) / d + 1);
  f.shift1 = l == 0 ? 0 : 1;
  f.shift2 = l == 0 ? 0 : l - 1;
  return f;
}

// Index arithmetic divides by sizes and strides, parameters fixed at lowering. GPUs have no
// integer divider: a division by a runtime word costs about 20 instructions, and index-heavy
// kernels (a concatenation of permuted heads: 10 divisions per element) were bound by it on an
// H100. The magic words are parameters computed from the divisor at each lowering, so one source
// still serves every size; the CPU, which compiles fixed parameters in, folds them.
int Emitter::divide_by_fixed(int n, int d) {
  static const bool enabled = [] {  // EMBER_FIXED_DIVISION=0: the hardware's division (A/B)
    const char* e = std::getenv("EMBER_FIXED_DIVISION");
    return e == nullptr || std::string(e) != "0";
  }();
  if (!enabled) return -1;
  if (type_of(n) != CType::Uint || k_.exprs[d].op != XOp::Param || type_of(d) != CType::Uint)
    return -1;
  const auto slot = static_cast<size_t>(k_.exprs[d].imm);
  if (slot >= k_.param_fixed.size() || !k_.param_fixed[slot]) return -1;
  const FixedDivisor f = fixed_divisor(k_.param_values[slot]);
  const std::string key = absl::StrCat("div", slot);
  int magic = param_u(key + ":magic", f.magic);
  int s1 = param_u(key + ":shift1", f.shift1), s2 = param_u(key + ":shift2", f.shift2);
  int t = expr({XOp::MulHi, CType::Uint, 0, 0, {n, magic}});
  int half = bin(BinaryFn::Shr, bin(BinaryFn::Sub, n, t), s1);
  return bin(BinaryFn::Shr, bin(BinaryFn::Add, t, half), s2);
}

int Emitter::bin(BinaryFn fn, int a, int b) {
  if (fn == BinaryFn::Div || fn == BinaryFn::Rem) {
    int q = divide_by_fixed(a, b);
    if (q >= 0) return fn == BinaryFn::Div ? q : bin(BinaryFn::Sub, a, bin(BinaryFn::Mul, q, b));
  }
  bool boolean = ir::is_comparison(fn) || fn == BinaryFn::LogicalAnd || fn == BinaryFn::LogicalOr;
  return expr(
      {XOp::Binary, boolean ? CType::Bool : type_of(a), static_cast<int64_t>(fn), 0, {a, b}});
}

int Emitter::fma(int a, int b, int c) { return expr({XOp::Fma, type_of(c), 0, 0, {a, b, c}}); }

int Emitter::select(int c, int a, int b) {
  return expr({XOp::Select, type_of(a), 0, 0, {c, a, b}});
}

int Emitter::cast(int a, CType t) {
  if (type_of(a) == t) return a;
  return expr({XOp::Cast, t, 0, 0, {a}});
}

int Emitter::umin(int a, int b) { return select(bin(BinaryFn::Lt, a, b), a, b); }

// ---------------------------------------------------------------- statements

void Emitter::push_stmt(Stmt s) { k_.body.push_back(s); }

int Emitter::new_var(CType t, int init) {
  int id = k_.num_vars++;
  Stmt s{SOp::DeclVar, init};
  s.var = id;
  s.type = t;
  push_stmt(s);
  return id;
}

void Emitter::assign(int var_id, int value) {
  Stmt s{SOp::Assign, value};
  s.var = var_id;
  push_stmt(s);
}

int Emitter::begin_lanes_from(int start, int end) {
  if (row_cache_steps_ <= 0) throw std::logic_error("begin_lanes_from: no row cache");
  int lane = begin_for(SOp::ForLanes, end);
  k_.body.back().index = start;
  return lane;
}

int Emitter::begin_for(SOp kind, int count, int unroll) {
  if (kind == SOp::ForLanes && row_cache_steps_ > 0) {
    if (lanes_loop_ < 0 && !row_scope_marked_) row_scope_pos_ = k_.body.size();
    ++lanes_loop_;
    int id = k_.num_vars++;
    int step = k_.num_vars++;
    Stmt s{kind, count};
    s.var = id;
    s.var2 = step;
    s.code = row_cache_steps_;
    push_stmt(s);
    memo_.emplace_back();
    lane_step_ = var(step, CType::Uint);
    return var(id, CType::Uint);
  }
  if (kind == SOp::ForRows) {
    lanes_loop_ = -1;
    row_scope_marked_ = false;
    row_cache_.clear();
  }
  int id = k_.num_vars++;
  Stmt s{kind, count};
  s.var = id;
  s.code = kind == SOp::ForGrid ? unroll : 0;
  push_stmt(s);
  memo_.emplace_back();
  return var(id, CType::Uint);
}

void Emitter::begin_if(int cond) {
  push_stmt({SOp::If, cond});
  memo_.emplace_back();
}

void Emitter::end() {
  push_stmt({SOp::End});
  memo_.pop_back();
  vec_loads_.clear();
  lane_step_ = -1;
}

void Emitter::barrier() { push_stmt({SOp::Barrier}); }

void Emitter::store(ValueId v, int index, int value) {
  CType t = compute_type(g_.type(v).dtype);
  Stmt s{SOp::Store, k_.exprs[value].vector() ? value : cast(value, t)};
  s.index = index;
  s.buffer = binding(v, true);
  push_stmt(s);
}

int Emitter::declare_array(CType t, int size) {
  Stmt s{SOp::DeclArray};
  s.var = k_.num_vars++;
  s.type = t;
  s.code = size;
  push_stmt(s);
  return s.var;
}

void Emitter::array_store(int array, int index, int value) {
  Stmt s{SOp::ArrayStore, value};
  s.var = array;
  s.index = index;
  push_stmt(s);
}

void Emitter::stream_store(ValueId v, int start, int array, int count, int array_offset) {
  if (g_.type(v).dtype != DType::F32) throw std::logic_error("stream_store: f32 outputs only");
  Stmt s{SOp::StreamStore, count};
  s.index = start;
  s.var = array;
  if (array_offset >= 0) s.args = {array_offset};
  s.buffer = binding(v, true);
  push_stmt(s);
}

void Emitter::error_if(int cond, ErrorSite site, int value, int limit) {
  k_.uses_errors = true;
  error_sites_.push_back(site);
  Stmt s{SOp::Error, cond};
  s.index = cast(value, CType::Uint);
  s.limit = cast(limit, CType::Uint);
  // The value's high word, so that 64-bit indices are reported whole.
  int hi = const_u(0);
  if (type_of(value) == CType::Int64) {
    hi = cast(bin(BinaryFn::Shr, value, cast(const_u(32), CType::Int64)), CType::Uint);
  } else if (type_of(value) == CType::Int) {
    hi = select(bin(BinaryFn::Lt, value, cast(const_u(0), CType::Int)), const_u(0xffffffffu),
                const_u(0));
  }
  s.args = {hi};
  s.code = static_cast<int>(error_sites_.size());
  push_stmt(s);
}

int Emitter::binding(ValueId v, bool written) {
  for (size_t i = 0; i < bindings_.size(); ++i) {
    if (bindings_[i] == v) {
      if (written && !writes_[i]) {
        writes_[i] = true;
        k_.buffers[i].written = true;
      }
      return static_cast<int>(i);
    }
  }
  bindings_.push_back(v);
  writes_.push_back(written);
  k_.buffers.push_back({g_.type(v).dtype, written});
  return static_cast<int>(bindings_.size()) - 1;
}

// ---------------------------------------------------------------- indices

int Emitter::size_param(const Shape& s, int d, const std::string& key) {
  return param_u(absl::StrCat(key, ":d", d), static_cast<uint32_t>(s[d]));
}

int Emitter::numel_param(const Shape& s, const std::string& key) {
  return param_u(absl::StrCat(key, ":n"), static_cast<uint32_t>(s.numel()));
}

int Emitter::dim(Index& idx, int d) {
  if (idx.shape[d] == 1) return const_u(0);
  if (idx.dims[d] >= 0) return idx.dims[d];
  // From the linear index: (linear / stride_d) % size_d, with the row-major stride a parameter.
  int64_t stride = 1;
  for (int e = d + 1; e < idx.shape.rank(); ++e) stride *= idx.shape[e];
  std::string key = absl::StrCat("shape", idx.shape.to_string());
  int q = idx.linear;
  bool outermost = true;
  for (int e = 0; e < d; ++e) outermost = outermost && idx.shape[e] == 1;
  if (stride != 1) {
    q = bin(BinaryFn::Div, q, param_u(absl::StrCat(key, ":s", d), static_cast<uint32_t>(stride)));
  }
  idx.dims[d] = outermost ? q : bin(BinaryFn::Rem, q, size_param(idx.shape, d, key));
  return idx.dims[d];
}

int Emitter::linear(Index& idx) {
  if (idx.linear >= 0) return idx.linear;
  std::string key = absl::StrCat("shape", idx.shape.to_string());
  int acc = -1;
  int64_t stride = 1;
  for (int d = idx.shape.rank() - 1; d >= 0; --d) {
    if (idx.shape[d] != 1) {
      int term = dim(idx, d);
      if (stride != 1) {
        term = bin(BinaryFn::Mul, term,
                   param_u(absl::StrCat(key, ":s", d), static_cast<uint32_t>(stride)));
      }
      acc = acc < 0 ? term : bin(BinaryFn::Add, acc, term);
    }
    stride *= idx.shape[d];
  }
  idx.linear = acc < 0 ? const_u(0) : acc;
  return idx.linear;
}

Index Emitter::input_index(const Shape& in_shape, Index& out_idx) {
  Index in{in_shape, std::vector<int>(in_shape.rank(), -1), -1};
  if (in_shape == out_idx.shape) return out_idx;
  for (int d = 0; d < in_shape.rank(); ++d) {
    in.dims[d] = in_shape[d] == 1 ? const_u(0) : dim(out_idx, d);
  }
  return in;
}

// The input index of a reshape. A known linear index (a grid's) passes through, and the input's
// coordinates come from it where they are used. Where only coordinates are known (inside a
// concatenation, a pad, a permute), each group of dims whose sizes multiply to the same extent
// on both sides maps on its own: a kept dim passes through, a split dim divides one coordinate,
// a merged group combines its coordinates. Linearising the whole index to cut it up again would
// cost a division and a remainder per input dim over the whole rank (a head split inside the
// packed projection's gradient: 10 of them per input, integer-division bound on an H100).
Index Emitter::reshape_index(const Shape& in_shape, Index& idx, const std::string& key) {
  if (idx.linear >= 0 || in_shape.numel() == 0) {
    return Index{in_shape, {}, linear(idx), idx.vec_base, idx.vec_lane};
  }
  Index in{in_shape, std::vector<int>(in_shape.rank(), -1), -1};
  for (int d = 0; d < in_shape.rank(); ++d) {
    if (in_shape[d] == 1) in.dims[d] = const_u(0);
  }
  for (const ReshapeGroup& group : reshape_groups(idx.shape, in_shape)) {
    const std::vector<int>&group_out = group.out, &group_in = group.in;
    // The coordinate within the group, row-major over its output dims.
    int c = -1;
    int64_t stride = 1;
    for (int i = static_cast<int>(group_out.size()) - 1; i >= 0; --i) {
      int term = dim(idx, group_out[i]);
      if (stride != 1) {
        term = bin(BinaryFn::Mul, term,
                   param_u(absl::StrCat(key, ":os", group_out[i]), static_cast<uint32_t>(stride)));
      }
      c = c < 0 ? term : bin(BinaryFn::Add, c, term);
      stride *= idx.shape[group_out[i]];
    }
    // Cut into the group's input dims.
    stride = 1;
    for (int i = static_cast<int>(group_in.size()) - 1; i >= 0; --i) {
      const int d = group_in[i];
      int q = c;
      if (stride != 1) {
        q = bin(BinaryFn::Div, c,
                param_u(absl::StrCat(key, ":is", d), static_cast<uint32_t>(stride)));
      }
      in.dims[d] = i == 0 ? q : bin(BinaryFn::Rem, q, size_param(in_shape, d, key + ":in"));
      stride *= in_shape[d];
    }
  }
  return in;
}

int Emitter::element_index(ValueId v, Index& idx) {
  const runtime::Array& a = layout_(v);
  if (a.is_contiguous()) return linear(idx);
  std::string key = absl::StrCat("buf%", v);
  int acc = param_u(key + ":off", static_cast<uint32_t>(a.offset));
  for (int d = 0; d < idx.shape.rank(); ++d) {
    if (idx.shape[d] == 1) continue;
    int term = bin(BinaryFn::Mul, dim(idx, d),
                   param_u(absl::StrCat(key, ":st", d), static_cast<uint32_t>(a.strides[d])));
    acc = bin(BinaryFn::Add, acc, term);
  }
  return acc;
}

// ---------------------------------------------------------------- values

bool Emitter::vectorizable(ValueId v) const {
  return dtype_size(g_.type(v).dtype) == 4 && layout_(v).is_contiguous();
}

int Emitter::load(ValueId v, Index& idx) {
  int b = binding(v, false);
  CType t = compute_type(g_.type(v).dtype);
  if (idx.row_lane && lane_step_ >= 0 && cache_row_loads_) {
    auto it = row_cache_.find(v);
    if (it != row_cache_.end() && it->second.filled_in != lanes_loop_) {
      return expr({XOp::ArrayLoad, t, it->second.array, 0, {lane_step_}});
    }
    const CachedRow& row = row_array(v, t);
    int x = expr({XOp::Load, t, b, 0, {element_index(v, idx)}});
    Stmt st{SOp::ArrayStore, x};
    st.var = row.array;
    st.index = lane_step_;
    push_stmt(st);
    return x;
  }
  if (idx.vec_lane >= 0 && idx.shape.numel() == g_.type(v).shape.numel() && vectorizable(v)) {
    if (idx.vec_base != home_vector_ || home_vector_ < 0) read_elsewhere_.insert(v);
    use_vec4(b);
    auto [it, fresh] = vec_loads_.try_emplace({v, idx.vec_base}, -1);
    if (fresh) it->second = expr({XOp::LoadVec, t, b, 0, {idx.vec_base}});
    return expr({XOp::Lane, t, idx.vec_lane, 0, {it->second}});
  }
  int i = element_index(v, idx);
  bool home = home_linear_ >= 0 && i == home_linear_ && layout_(v).is_contiguous() &&
              g_.type(v).shape.numel() == idx.shape.numel();
  if (!home) read_elsewhere_.insert(v);
  return expr({XOp::Load, t, b, 0, {i}});
}

Emitter::CachedRow& Emitter::row_array(ValueId v, CType t) {
  auto it = row_cache_.find(v);
  if (it != row_cache_.end()) return it->second;
  int array = k_.num_vars++;
  Stmt decl{SOp::DeclArray};
  decl.var = array;
  decl.type = t;
  decl.code = row_cache_steps_;
  k_.body.insert(k_.body.begin() + static_cast<std::ptrdiff_t>(row_scope_pos_), decl);
  return row_cache_.emplace(v, CachedRow{array, lanes_loop_}).first->second;
}

int Emitter::reserve_row_array(ValueId v, CType t) {
  CachedRow& row = row_array(v, t);
  row.filled_in = lanes_loop_ + 1;
  return row.array;
}

// A value of cached_values_ at a row element: computed and kept by the first lanes loop that
// needs it, read back from its array by the later ones.
int Emitter::cached_row_value(ValueId v, Index& idx) {
  CType t = compute_type(g_.type(v).dtype);
  auto it = row_cache_.find(v);
  if (it != row_cache_.end() && it->second.filled_in != lanes_loop_) {
    return expr({XOp::ArrayLoad, t, it->second.array, 0, {lane_step_}});
  }
  int x = compute(v, idx);
  const CachedRow& row = row_array(v, t);
  Stmt st{SOp::ArrayStore, x};
  st.var = row.array;
  st.index = lane_step_;
  push_stmt(st);
  return x;
}

int Emitter::value(ValueId v, Index idx) {
  if (auto it = provided_.find(v); it != provided_.end()) return it->second;
  if (idx.dims.empty()) idx.dims.assign(idx.shape.rank(), -1);
  auto key = std::make_tuple(v, idx.dims, idx.linear);
  // Vector lanes are only known for indices that came straight from the kernel's own index.
  if (idx.linear < 0) idx.vec_lane = idx.vec_base = -1;
  // Row loads are cached only when the index is a row element and the value is a stored buffer.
  for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
    if (auto m = it->find(key); m != it->end()) return m->second;
  }
  bool stored_elsewhere = stored_[v] && (g_.node(v).op == OpKind::Input || producer_[v] != kernel_);
  bool cached = !stored_elsewhere && idx.row_lane && lane_step_ >= 0 && cached_values_.count(v);
  int e = stored_elsewhere ? load(v, idx) : cached ? cached_row_value(v, idx) : compute(v, idx);
  if (!stored_elsewhere) computed_[v] = 1;
  memo_.back()[key] = e;
  return e;
}

namespace {

// The scalar rounded to t exactly as the CPU backend stores it, then carried as bits: one word,
// two (low first) for 64-bit types.
ScalarWords scalar_words(ir::Scalar s, DType t) {
  double d = s.as_double();
  int64_t i = s.is_int ? s.as_int() : static_cast<int64_t>(d);
  switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::BF16: {
      float f = 0;
      if (t == DType::F32) {
        f = static_cast<float>(d);
      } else {
        uint16_t half = 0;
        runtime::convert_elements(DType::F64, &d, t, &half, 1);
        runtime::convert_elements(t, &half, DType::F32, &f, 1);
      }
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return {{bits, 0}, 1};
    }
    case DType::F64: {
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return {{static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)}, 2};
    }
    case DType::I64:
      return {{static_cast<uint32_t>(i), static_cast<uint32_t>(static_cast<uint64_t>(i) >> 32)}, 2};
    case DType::I32:
      return {{static_cast<uint32_t>(i), 0}, 1};
    case DType::U8:
      return {{static_cast<uint32_t>(i & 0xff), 0}, 1};
    case DType::Bool:
      return {{(s.is_int ? i != 0 : d != 0) ? 1u : 0u, 0}, 1};
  }
  return {};
}

ScalarWords split_u64(uint64_t v) {
  return {{static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)}, 2};
}

}  // namespace

ScalarWords scalar_field_words(const ir::Node& n, const ScalarPatch& p) {
  return std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, uint64_t>) return split_u64(v);
        if constexpr (std::is_same_v<T, double>)
          return scalar_words(ir::Scalar::from_double(v), p.as);
        if constexpr (std::is_same_v<T, ir::Scalar>) return scalar_words(v, p.as);
      },
      ir::scalar_field(n.attrs, p.field));
}

std::pair<int, int> Emitter::scalar_u64_params(ValueId v, const char* field,
                                               const std::string& key) {
  ScalarPatch patch{0, v, ir::scalar_field_index(g_.node(v).attrs, field), DType::I64};
  ScalarWords w = scalar_field_words(g_.node(v), patch);
  int lo = param_u(absl::StrCat(key, ":", field, "_lo"), w[0]);
  int hi = param_u(absl::StrCat(key, ":", field, "_hi"), w[1]);
  patch.slot = static_cast<int>(k_.exprs[lo].imm);
  scalar_patches_.push_back(patch);
  k_.param_fixed[patch.slot] = k_.param_fixed[k_.exprs[hi].imm] = 0;  // runtime values
  return {lo, hi};
}

int Emitter::scalar_param(ValueId v, const char* field, DType t, const std::string& key) {
  ScalarPatch patch{0, v, ir::scalar_field_index(g_.node(v).attrs, field), t};
  ScalarWords w = scalar_field_words(g_.node(v), patch);
  bool wide = w.size() == 2;
  int p = param_u(wide ? key + ":lo" : key, w[0]);
  if (wide) param_u(key + ":hi", w[1]);
  patch.slot = static_cast<int>(k_.exprs[p].imm);
  scalar_patches_.push_back(patch);
  for (size_t i = 0; i < w.size(); ++i) k_.param_fixed[patch.slot + i] = 0;  // runtime values
  switch (t) {
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      k_.exprs[p].op = XOp::ParamF;
      k_.exprs[p].type = CType::Float;
      return p;
    case DType::F64:
      return expr({XOp::ParamD, CType::Double, k_.exprs[p].imm});
    case DType::I64:
      return expr({XOp::ParamI64, CType::Int64, k_.exprs[p].imm});
    case DType::I32:
      return cast(p, CType::Int);
    case DType::U8:
      return p;
    case DType::Bool:
      return bin(BinaryFn::Ne, p, const_u(0));
  }
  return const_u(0);
}

// Float to integer, as every device does it (docs/ops.md): NaN is 0, other values are truncated
// toward zero and saturated to the integer type's range (+-inf to its ends). Written here, once,
// so the CPU, GLSL and CUDA agree; a GPU's own conversion of an out-of-range value differs.
int Emitter::saturating_float_to_int(int x, DType to) {
  CType ft = type_of(x);
  CType it = compute_type(to);
  double lo = 0, hi = 0;
  switch (to) {
    case DType::I32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::I64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      break;
    default:  // u8
      lo = 0, hi = 255;
      break;
  }
  // Bounds as exact integers of the target type; comparisons in the float type (2^31 - 1 and
  // 2^63 - 1 round up to the next power of two there, which is out of range: >= is right).
  int64_t ilo = to == DType::I64 ? INT64_MIN : static_cast<int64_t>(lo);
  int64_t ihi = to == DType::I64 ? INT64_MAX : static_cast<int64_t>(hi);
  int too_low = bin(BinaryFn::Le, x, const_f(lo, ft));
  int too_high = bin(BinaryFn::Ge, x, const_f(hi, ft));
  int nan = un(UnaryFn::IsNan, x);
  int safe = select(bin(BinaryFn::LogicalOr, bin(BinaryFn::LogicalOr, too_low, too_high), nan),
                    const_f(0, ft), x);
  int r = cast(safe, it);
  r = select(too_high, const_i(ihi, it), r);
  r = select(too_low, const_i(ilo, it), r);
  return r;
}

int Emitter::compute(ValueId v, Index& idx) {
  const ir::Node& n = g_.node(v);
  CType t = compute_type(n.type.dtype);
  std::string key = absl::StrCat("%", v);
  auto in_value = [&](int i) {
    ValueId in = n.inputs[i];
    return value(in, input_index(g_.type(in).shape, idx));
  };
  switch (n.op) {
    case OpKind::Full:
      return scalar_param(v, "value", n.type.dtype, key);
    case OpKind::Iota:
      return cast(dim(idx, n.get<ir::IotaAttrs>().axis), t);
    case OpKind::Random:
      return random(n, v, idx);
    case OpKind::Unary:
      return un(n.get<ir::UnaryAttrs>().fn, in_value(0));
    case OpKind::Binary: {
      BinaryFn fn = n.get<ir::BinaryAttrs>().fn;
      int a = in_value(0), b = in_value(1);
      bool int_div = (fn == BinaryFn::Div || fn == BinaryFn::Rem) && is_int(n.type.dtype);
      if (int_div) {
        error_if(bin(BinaryFn::Eq, b, cast(const_u(0), type_of(b))),
                 {ErrorKind::DivisionByZero, v, 0}, const_u(0), const_u(0));
      }
      return bin(fn, a, b);
    }
    case OpKind::Where: {
      int c = in_value(0), a = in_value(1), b = in_value(2);
      return select(c, a, b);
    }
    case OpKind::Cast: {
      DType from = g_.type(n.inputs[0]).dtype;
      int x = is_float(from) && is_int(n.type.dtype)
                  ? saturating_float_to_int(in_value(0), n.type.dtype)
                  : cast(in_value(0), t);
      bool narrow =
          (n.type.dtype == DType::F16 || n.type.dtype == DType::BF16) && from != n.type.dtype;
      // f16/bf16 compute in f32: the value must still be rounded to what the tensor can hold.
      if (narrow)
        x = expr({XOp::Quantize, CType::Float, static_cast<int64_t>(n.type.dtype), 0, {x}});
      return x;
    }
    case OpKind::Reshape: {
      ValueId in = n.inputs[0];
      Index in_idx = reshape_index(g_.type(in).shape, idx, key);
      return value(in, in_idx);
    }
    case OpKind::Permute: {
      const auto& perm = n.get<ir::PermuteAttrs>().perm;
      ValueId in = n.inputs[0];
      Index in_idx{g_.type(in).shape, std::vector<int>(perm.size(), -1), -1};
      for (size_t i = 0; i < perm.size(); ++i) in_idx.dims[perm[i]] = dim(idx, static_cast<int>(i));
      return value(in, in_idx);
    }
    case OpKind::Expand:
      return in_value(0);
    case OpKind::Slice: {
      const auto& a = n.get<ir::SliceAttrs>();
      ValueId in = n.inputs[0];
      Index in_idx{g_.type(in).shape, std::vector<int>(idx.shape.rank(), -1), -1};
      for (int d = 0; d < idx.shape.rank(); ++d) {
        int e = dim(idx, d);
        if (a.steps[d] != 1) {
          e = bin(BinaryFn::Mul, e, param_u(absl::StrCat(key, ":step", d), a.steps[d]));
        }
        if (in_idx.shape[d] != 1) {
          e = bin(BinaryFn::Add, e, param_u(absl::StrCat(key, ":start", d), a.starts[d]));
        }
        in_idx.dims[d] = e;
      }
      return value(in, in_idx);
    }
    case OpKind::Flip: {
      ValueId in = n.inputs[0];
      Index in_idx{g_.type(in).shape, std::vector<int>(idx.shape.rank(), -1), -1};
      for (int d = 0; d < idx.shape.rank(); ++d) in_idx.dims[d] = dim(idx, d);
      for (int a : n.get<ir::FlipAttrs>().axes) {
        if (idx.shape[a] <= 1) continue;
        int last = param_u(absl::StrCat(key, ":last", a), static_cast<uint32_t>(idx.shape[a] - 1));
        in_idx.dims[a] = bin(BinaryFn::Sub, last, dim(idx, a));
      }
      return value(in, in_idx);
    }
    case OpKind::Pad:
      return pad(n, v, idx);
    case OpKind::Concat:
      return concat(n, v, idx);
    case OpKind::Gather:
      return gather(n, v, idx);
    default:
      throw Error(absl::StrCat("jit: ", ir::op_name(n.op), " %", v,
                               " cannot be computed inline (planner bug)"));
  }
}

int Emitter::random(const ir::Node& n, ValueId v, Index& idx) {
  const auto& a = n.get<ir::RandomAttrs>();
  std::string key = absl::StrCat("%", v);
  int lin = linear(idx);
  auto [off_lo, off_hi] = scalar_u64_params(v, "offset", key);
  int lo = bin(BinaryFn::Add, off_lo, lin);
  int carry = select(bin(BinaryFn::Lt, lo, lin), const_u(1), const_u(0));
  int hi = bin(BinaryFn::Add, off_hi, carry);
  auto [s_lo, s_hi] = scalar_u64_params(v, "seed", key);
  int pa = scalar_param(v, "a", DType::F32, key + ":a");
  int pb = scalar_param(v, "b", DType::F32, key + ":b");
  int r = expr(
      {XOp::Random, CType::Float, static_cast<int64_t>(a.dist), 0, {lo, hi, s_lo, s_hi, pa, pb}});
  return cast(r, compute_type(n.type.dtype));
}

int Emitter::pad(const ir::Node& n, ValueId v, Index& idx) {
  const auto& a = n.get<ir::PadAttrs>();
  std::string key = absl::StrCat("%", v);
  int fill = scalar_param(v, "value", n.type.dtype, key + ":value");
  ValueId in = n.inputs[0];
  const Shape& s = g_.type(in).shape;
  if (s.numel() == 0) return fill;
  Index in_idx{s, std::vector<int>(s.rank(), -1), -1};
  int inside = -1;
  for (int d = 0; d < s.rank(); ++d) {
    int e = dim(idx, d);
    if (a.before[d] == 0 && a.after[d] == 0) {
      in_idx.dims[d] = e;
      continue;
    }
    int before = param_u(absl::StrCat(key, ":before", d), static_cast<uint32_t>(a.before[d]));
    int size = size_param(s, d, key + ":in");
    int shifted = bin(BinaryFn::Sub, e, before);  // wraps below zero: caught by `< size`
    int ok = bin(BinaryFn::Lt, shifted, size);
    inside = inside < 0 ? ok : bin(BinaryFn::LogicalAnd, inside, ok);
    in_idx.dims[d] = umin(shifted, bin(BinaryFn::Sub, size, const_u(1)));
  }
  int x = value(in, in_idx);
  return inside < 0 ? x : select(inside, x, fill);
}

int Emitter::concat(const ir::Node& n, ValueId v, Index& idx) {
  int axis = n.get<ir::AxisAttrs>().axis;
  std::string key = absl::StrCat("%", v);
  int a = dim(idx, axis);
  // Non-empty parts with their first index along the axis.
  std::vector<std::pair<int64_t, ValueId>> parts;
  int64_t start = 0;
  for (ValueId in : n.inputs) {
    if (g_.type(in).shape[axis] > 0) parts.push_back({start, in});
    start += g_.type(in).shape[axis];
  }
  auto part_value = [&](int64_t first, ValueId in) {
    const Shape& s = g_.type(in).shape;
    Index in_idx{s, std::vector<int>(s.rank(), -1), -1};
    for (int d = 0; d < s.rank(); ++d) in_idx.dims[d] = dim(idx, d);
    int begin = param_u(absl::StrCat(key, ":begin", first), static_cast<uint32_t>(first));
    int last = param_u(absl::StrCat(key, ":last", first), static_cast<uint32_t>(s[axis] - 1));
    in_idx.dims[axis] = umin(bin(BinaryFn::Sub, a, begin), last);  // clamped: always in range
    return value(in, in_idx);
  };
  // From the last part back: part i holds `a` when a < the start of part i + 1.
  int result = part_value(parts.back().first, parts.back().second);
  for (int i = static_cast<int>(parts.size()) - 2; i >= 0; --i) {
    int x = part_value(parts[i].first, parts[i].second);
    int next = param_u(absl::StrCat(key, ":begin", parts[i + 1].first),
                       static_cast<uint32_t>(parts[i + 1].first));
    result = select(bin(BinaryFn::Lt, a, next), x, result);
  }
  return result;
}

int Emitter::gather(const ir::Node& n, ValueId v, Index& idx) {
  int axis = n.get<ir::AxisAttrs>().axis;
  ValueId x = n.inputs[0], index = n.inputs[1];
  const Shape& xs = g_.type(x).shape;
  int j = value(index, idx);  // index has v's shape
  CType jt = type_of(j);
  int size = size_param(xs, axis, absl::StrCat("%", v, ":x"));
  int sized = cast(size, jt);
  int bad = bin(BinaryFn::Ge, j, sized);
  if (jt != CType::Uint)
    bad = bin(BinaryFn::LogicalOr, bad, bin(BinaryFn::Lt, j, cast(const_u(0), jt)));
  error_if(bad, {ErrorKind::IndexOutOfRange, v, axis}, j, size);
  int safe = select(bad, const_u(0), cast(j, CType::Uint));
  Index in_idx{xs, std::vector<int>(xs.rank(), -1), -1};
  for (int d = 0; d < xs.rank(); ++d) in_idx.dims[d] = d == axis ? safe : dim(idx, d);
  return value(x, in_idx);
}

}  // namespace ember::jit
