#pragma once
// Builds kernel descriptions: typed expressions, structured statements, parameters and buffer
// bindings, and the value of any graph node at any index (views become index arithmetic,
// elementwise chains become expressions, stored values become loads).
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "jit/codegen/kernel.h"
#include "runtime/backend.h"

namespace ember::jit {

// An index into a value of `shape`: per-dim expressions, a row-major linear expression, or both;
// missing forms are derived on demand.
struct Index {
  Shape shape;
  std::vector<int> dims;  // -1: not yet known
  int linear = -1;
  // Vectorised pointwise kernels: linear == 4 * vec_base + vec_lane, so a contiguous buffer's
  // element is lane vec_lane of its vector vec_base.
  int vec_base = -1;
  int vec_lane = -1;
  // Row kernels: the index is (this row, the current lane element), so a load may come from the
  // thread's register cache of the row.
  bool row_lane = false;
};

// Why a kernel may fail at run time (checked in the kernel, reported after the flush).
enum class ErrorKind : uint8_t { IndexOutOfRange = 1, DivisionByZero = 2 };

struct ErrorSite {
  ErrorKind kind;
  ir::ValueId node;  // the op whose check failed
  int axis;          // for index errors
};

// Where a parameter word holding a runtime scalar (a fill value, an RNG seed) came from: a flush
// whose graph differs from an earlier one only in such scalars reuses the earlier lowering and
// rewrites these words (jit/lower/lower.h patch_scalars).
struct ScalarPatch {
  int slot;  // first parameter word; 64-bit values take two
  ir::ValueId node;
  int field;  // which of the node's Role::Scalar attribute fields (ir/attrs.h)
  DType as;   // the words of a value of this dtype (I64 for 64-bit counters)
};

// One scalar's parameter words (one, or two for 64-bit values): a value type, since a cached
// plan's reuse rewrites every scalar of every flush.
struct ScalarWords {
  uint32_t w[2] = {0, 0};
  int n = 1;
  const uint32_t* begin() const { return w; }
  const uint32_t* end() const { return w + n; }
  size_t size() const { return static_cast<size_t>(n); }
  uint32_t operator[](size_t i) const { return w[i]; }
};

// The parameter words of the patch's field of node `n`, as kernels read them.
ScalarWords scalar_field_words(const ir::Node& n, const ScalarPatch& p);

class Emitter {
 public:
  using LayoutFn = std::function<const runtime::Array&(ir::ValueId)>;
  // `stored` and `producer`: per value, whether it lives in a buffer and which kernel of the plan
  // computes it; the emitter builds kernel `kernel`, loading what other kernels stored.
  Emitter(const ir::Graph& g, const std::vector<char>& stored, const std::vector<int>& producer,
          int kernel, LayoutFn layout);

  KernelDesc& desc() { return k_; }
  std::vector<uint32_t>& params() { return params_; }
  const std::vector<ir::ValueId>& bindings() const { return bindings_; }
  const std::vector<bool>& writes() const { return writes_; }
  const std::vector<ErrorSite>& error_sites() const { return error_sites_; }
  const std::vector<ScalarPatch>& scalar_patches() const { return scalar_patches_; }
  int fused_nodes() const {
    return static_cast<int>(std::count(computed_.begin(), computed_.end(), 1));
  }

  // ---- expressions
  int expr(Expr e);
  int const_u(uint64_t v);
  int const_i(int64_t v, CType t);
  int const_f(double v, CType t);
  int const_b(bool v);
  int param_u(const std::string& key, uint32_t value);
  int builtin(Builtin b);
  int var(int id, CType t);
  int un(ir::UnaryFn fn, int a);
  int bin(ir::BinaryFn fn, int a, int b);
  // n / d by a multiply and shifts where d is a parameter fixed at lowering; -1 otherwise.
  int divide_by_fixed(int n, int d);
  int select(int c, int a, int b);
  int fma(int a, int b, int c);  // a * b + c, one rounding
  int cast(int a, CType t);
  int umin(int a, int b);
  CType type_of(int e) const { return k_.exprs[e].type; }

  // ---- statements
  int new_var(CType t, int init);
  void assign(int var_id, int value);
  // Returns the loop variable's expression. ForGrid may process `unroll` elements per thread per
  // step (independent loads in flight).
  int begin_for(SOp kind, int count, int unroll = 1);
  // A cached-row lanes loop over [start, end) (the CPU target's chunks of a row): its variable
  // and step are the row element.
  int begin_lanes_from(int start, int end);
  // Row arrays (the row cache) are declared at statement position `at` in this row's kernel,
  // not before the row's first lanes loop (that loop is inside a chunk loop; or `at` is before
  // the row loop, so that an array keeps its contents from one row to the next).
  void mark_row_scope(size_t at) {
    row_scope_pos_ = at;
    row_scope_marked_ = true;
  }
  // The row array of cached value v (cache_row_values), declared now; the next lanes loop
  // fills it.
  int reserve_row_array(ir::ValueId v, CType t);
  // Row kernels: lanes loops with `steps` fixed steps whose loads of the row are kept in
  // per-thread arrays, so the row is read from memory once however many passes use it.
  // `loads` false: only the values named by cache_row_values are kept (the CPU target, whose
  // loads of a row come from its L1 cache anyway).
  void enable_row_cache(int steps, bool loads = true) {
    row_cache_steps_ = steps;
    cache_row_loads_ = loads;
  }
  // Values computed per row element whose results a later lanes loop reuses (softmax's exp,
  // computed for the sum and again for the output), kept in the row's arrays instead.
  void cache_row_values(std::set<ir::ValueId> values) { cached_values_ = std::move(values); }
  void begin_if(int cond);
  void end();
  void store(ir::ValueId v, int index, int value);
  // A per-thread array of `size` elements of type t, declared here; its variable id.
  int declare_array(CType t, int size);
  void array_store(int array, int index, int value);
  // v's elements [start, start + count) from `array` (f32 outputs only), by non-temporal stores
  // where the CPU has them: an output larger than the caches is then not read into them first
  // (write-allocate), which costs a third of a copy's memory traffic and evicts what the kernel
  // reuses. The CPU target only.
  // `array_offset` (an expression, -1 for none): where in `array` the elements start.
  void stream_store(ir::ValueId v, int start, int array, int count, int array_offset = -1);
  void barrier();
  void error_if(int cond, ErrorSite site, int value, int limit);

  // ---- graph values
  // The value of node v at idx (idx.shape == v's shape), in v's compute type.
  int value(ir::ValueId v, Index idx);
  // Makes v's value at any index the expression e (row reductions, matmul accumulators).
  void provide(ir::ValueId v, int e) { provided_[v] = e; }
  int dim(Index& idx, int d);
  int linear(Index& idx);
  int numel_param(const Shape& s, const std::string& key);
  int size_param(const Shape& s, int d, const std::string& key);
  // Element index of `idx` in stored value v's buffer.
  int element_index(ir::ValueId v, Index& idx);
  int binding(ir::ValueId v, bool written);
  // The index every thread of a pointwise kernel owns (its linear index, or its vector): loads
  // of a value only ever at that index let the kernel write an output over the value's buffer.
  void set_home(int linear, int vector) {
    home_linear_ = linear;
    home_vector_ = vector;
  }
  bool read_only_at_home(ir::ValueId v) const { return !read_elsewhere_.count(v); }
  // Whether v's buffer can be read and written as 4-element vectors (contiguous, 4-byte dtype).
  bool vectorizable(ir::ValueId v) const;
  void use_vec4(int buffer) { k_.buffers[buffer].vec4 = true; }

 private:
  struct CachedRow {
    int array;
    int filled_in;  // lanes loop that stored it
  };
  int load(ir::ValueId v, Index& idx);
  // The per-thread array keeping v's row (declared before the row's first lanes loop, filled by
  // the current one).
  CachedRow& row_array(ir::ValueId v, CType t);
  int cached_row_value(ir::ValueId v, Index& idx);
  int compute(ir::ValueId v, Index& idx);
  int saturating_float_to_int(int x, DType to);
  // Node v's runtime-scalar attribute `field` as parameter words of dtype t (recorded as a
  // ScalarPatch), read in the kernel as t's compute type.
  int scalar_param(ir::ValueId v, const char* field, DType t, const std::string& key);
  // A 64-bit runtime counter (RNG seed, offset) as two u32 words: {low, high} expressions.
  std::pair<int, int> scalar_u64_params(ir::ValueId v, const char* field, const std::string& key);
  Index input_index(const Shape& in_shape, Index& out_idx);  // broadcasting
  Index reshape_index(const Shape& in_shape, Index& out_idx, const std::string& key);
  int random(const ir::Node& n, ir::ValueId v, Index& idx);
  int pad(const ir::Node& n, ir::ValueId v, Index& idx);
  int concat(const ir::Node& n, ir::ValueId v, Index& idx);
  int gather(const ir::Node& n, ir::ValueId v, Index& idx);
  void push_stmt(Stmt s);

  const ir::Graph& g_;
  const std::vector<char>& stored_;
  const std::vector<int>& producer_;
  int kernel_;
  LayoutFn layout_;
  KernelDesc k_;
  std::vector<uint32_t> params_;
  std::vector<ScalarPatch> scalar_patches_;
  std::map<std::string, int> param_slots_;
  std::vector<ir::ValueId> bindings_;
  std::vector<bool> writes_;
  std::vector<ErrorSite> error_sites_;
  std::map<std::pair<ir::ValueId, int>, int> vec_loads_;  // (value, vector index expr) -> LoadVec
  int home_linear_ = -1, home_vector_ = -1;
  int row_cache_steps_ = 0;
  bool cache_row_loads_ = true;
  std::set<ir::ValueId> cached_values_;
  int lane_step_ = -1;             // the current cached lanes loop's step index (an expr), or -1
  int lanes_loop_ = -1;            // which cached lanes loop we are in (counts up)
  size_t row_scope_pos_ = 0;       // where array declarations go: before the first lanes loop
  bool row_scope_marked_ = false;  // mark_row_scope set row_scope_pos_ for this row
  std::map<ir::ValueId, CachedRow> row_cache_;
  std::set<ir::ValueId> read_elsewhere_;
  std::map<ir::ValueId, int> provided_;
  std::vector<char> computed_;  // placeholder for counting fused nodes (sized lazily)
  // Memo of node values per statement scope: key = node, dims, linear.
  std::vector<std::map<std::tuple<ir::ValueId, std::vector<int>, int>, int>> memo_;
};

}  // namespace ember::jit
