#pragma once
// The C-style renderer core shared by every target: statements, expressions, operators and the
// math helpers all C-like languages need. A Dialect supplies what differs: type names, buffer
// declarations, builtins, loads/stores with storage conversion, workgroup reductions.
#include <span>
#include <stdexcept>
#include <string>

#include "jit/codegen/kernel.h"

namespace ember::jit {

class Dialect {
 public:
  virtual ~Dialect() = default;
  virtual std::string type(CType t) const = 0;
  // Declarations before the body: extensions, buffers, parameters, shared memory, helpers.
  virtual std::string prelude(const KernelDesc& k) const = 0;
  virtual std::string entry_begin(const KernelDesc& k) const = 0;
  virtual std::string entry_end() const { return "}\n"; }
  virtual std::string param(int slot) const = 0;
  virtual std::string param_double(int slot) const = 0;
  virtual std::string param_int64(int slot) const = 0;
  virtual std::string param_float(int slot) const = 0;
  virtual std::string builtin(Builtin b) const = 0;
  virtual std::string load(const KernelDesc& k, int buffer, const std::string& index) const = 0;
  // A 4-element vector load from a vec4-declared buffer, and the vector type of a lane type.
  virtual std::string load_vec(const KernelDesc& k, int buffer, const std::string& index) const = 0;
  virtual std::string vector_type(CType t) const = 0;
  virtual std::string make_vec(CType t, const std::string& a, const std::string& b,
                               const std::string& c, const std::string& d) const {
    return vector_type(t) + "(" + a + ", " + b + ", " + c + ", " + d + ")";
  }
  virtual std::string store(const KernelDesc& k, int buffer, const std::string& index,
                            const std::string& value) const = 0;
  virtual std::string grid_stride() const = 0;  // threads in the whole grid
  // The opening of a ForGrid (`unroll` elements per thread per step: it closes with "}}}") or a
  // ForRows loop over [0, count); "" for the GPU form (a grid stride). The CPU target gives
  // each workgroup a contiguous range instead (one thread per workgroup).
  virtual std::string for_grid(const std::string& var, const std::string& count, int unroll) const {
    return "";
  }
  virtual std::string for_rows(const std::string& var, const std::string& count) const {
    return "";
  }
  // The opening of a ForLanes loop of a fixed number of `steps` (a row cached in per-thread
  // arrays indexed by `step`) over [0, count), closed with "}}"; "" for the GPU form (every step
  // tested against count). A `start` other than "" (the CPU target's chunks of a row,
  // Stmt::index) makes it [start, count).
  virtual std::string for_cached_lanes(const std::string& var, const std::string& step,
                                       const std::string& start, const std::string& count,
                                       int steps) const {
    return "";
  }
  // Put before a ForGrid loop: `loop` holds its statements from the loop's own to its End.
  virtual std::string grid_prefix(const KernelDesc& k, std::span<const Stmt> loop) const {
    return "";
  }
  // Put before a ForLanes loop (a target whose workgroup is one thread may vectorise it):
  // `loop` holds its statements from the loop's own to its End, `after` the Reduce and
  // ArgReduce statements right after it (finishing the loop's accumulations), maybe none.
  virtual std::string lanes_prefix(const KernelDesc& k, std::span<const Stmt> loop,
                                   std::span<const Stmt> after) const {
    return "";
  }
  virtual std::string global_id() const = 0;
  virtual std::string barrier() const = 0;
  // Whether an integer division by zero (or INT_MIN / -1) traps on the target (the host CPU
  // does; GPUs give some value, which a failed check discards): divisions are then guarded.
  virtual bool integer_division_traps() const { return false; }
  // An attribute asking the compiler to unroll the loop that follows ("" if none).
  virtual std::string unroll() const { return ""; }
  // Declarations of values: a multiply and an add are never contracted into an FMA, so a value
  // recomputed in two kernels (fusion recomputes small expressions) has the same bits in both:
  // the backward of max compares a recomputed input with the stored maximum for equality.
  virtual std::string let_qualifier(CType t) const { return ""; }
  // a * b + c rounded once (XOp::Fma: matmul accumulations ask for it).
  virtual std::string fma(CType t, const std::string& a, const std::string& b,
                          const std::string& c) const {
    return "fma(" + a + ", " + b + ", " + c + ")";
  }
  // A workgroup-wide reduction of variable `var` (all threads see the result).
  virtual std::string reduce(const KernelDesc& k, const Stmt& s) const = 0;
  // Records failure `s.code`: the error words are E[0] (the first failing site), E[1] and E[3]
  // (its value's low and high words), E[2] (its bound), then one bit per site from E[4].
  virtual std::string error(const Stmt& s, const std::string& value, const std::string& limit,
                            const std::string& value_hi) const = 0;
  virtual std::string infinity(CType t, bool negative) const = 0;
  // A float rounded to f16 or bf16 precision, as storing and reloading it would.
  virtual std::string quantize(DType t, const std::string& a) const = 0;
  virtual std::string shared_name(int i) const { return "sh" + std::to_string(i); }
  // Unary math on float/double: name of the function implementing fn, or "" for an operator.
  virtual std::string math(ir::UnaryFn fn, CType t, const std::string& a) const = 0;
  // max/min of two floats with a NaN operand winning (BinaryFn::Max/Min) as one call, or ""
  // for the portable comparison-and-select expression.
  virtual std::string nan_minmax(bool is_max, CType t, const std::string& a,
                                 const std::string& b) const {
    return "";
  }
  // A tensor-core block tile (SOp::MmaTile) with its argument expressions rendered.
  virtual std::string mma_tile(const KernelDesc& k, const Stmt& s,
                               const std::vector<std::string>& args) const;
  // SOp::StreamStore: `count` floats of array `array` to buffer[start...], past the caches.
  virtual std::string stream_store(const KernelDesc& k, int buffer, const std::string& start,
                                   const std::string& array, const std::string& count) const {
    throw std::logic_error("stream stores are the CPU target's");
  }
  // A fused attention tile (SOp::Attention) with its argument expressions rendered.
  virtual std::string attention(const KernelDesc& k, const Stmt& s,
                                const std::vector<std::string>& args) const;
  // The fused LSTM recurrence (SOp::Lstm) with its argument expressions rendered.
  virtual std::string lstm(const KernelDesc& k, const Stmt& s,
                           const std::vector<std::string>& args) const;
};

std::string render(const KernelDesc& k, const Dialect& d);

}  // namespace ember::jit
