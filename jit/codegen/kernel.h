#pragma once
// The target-neutral kernel description: typed expressions and structured statements over
// tensor buffers and a parameter array. Renderers (GLSL today, CUDA C++ next) print it; nothing
// here knows a target's syntax. Sizes, strides, offsets and scalar constants are parameters, so
// one description serves every problem of the same structure.
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ops.h"

namespace ember::jit {

// Types of values inside a kernel. Tensors are stored as their DType and computed in one of these
// (f16/bf16 compute in Float, u8 in Uint).
enum class CType : uint8_t { Float, Double, Int, Int64, Uint, Bool };
CType compute_type(DType t);
inline bool is_floating(CType t) { return t == CType::Float || t == CType::Double; }
const char* ctype_name(CType t);

enum class XOp : uint8_t {
  Param,       // imm = parameter slot; the uint32 word as Uint
  ParamF,      // imm = slot; the word's bits as Float
  ParamD,      // imm = first of two slots; the words' bits as Double
  ParamI64,    // imm = first of two slots; as Int64
  Const,       // literal: imm (integers, bools) or fimm (floats)
  Var,         // imm = variable id (loop counters, accumulators)
  Builtin,     // imm = Builtin
  Load,        // imm = buffer; args[0] = element index (Uint); converts storage to compute type
  Unary,       // imm = ir::UnaryFn
  Binary,      // imm = ir::BinaryFn (comparisons give Bool; Uint arithmetic is index math)
  Select,      // args: cond, if_true, if_false
  Cast,        // args[0] converted to `type`
  Random,      // imm = ir::RandomDist; args: counter lo, hi, seed lo, hi (Uint), a, b (Float)
  SharedLoad,  // imm = shared array; args[0] = index
  Quantize,    // imm = DType (f16 or bf16): args[0] (Float) rounded to that precision
  LoadVec,     // imm = buffer (declared vec4); args[0] = vector index: 4 consecutive elements
  Lane,        // imm = lane 0..3 of the vector args[0]
  MakeVec,     // args = 4 scalars -> a vector (for a vector store)
  ArrayLoad,   // imm = array variable; args[0] = element (a compile-time loop index)
  Fma,         // args: a, b, c -> a * b + c with one rounding (Float/Double). Only where asked
               // for: targets never contract a separate multiply and add (see Dialect::let)
  MulHi,       // args: a, b (Uint) -> the high word of their 64-bit product
};

enum class Builtin : uint8_t { LocalId, WorkgroupId, NumWorkgroups, WorkgroupSize };

struct Expr {
  XOp op;
  CType type;  // for LoadVec/MakeVec: the type of each of the 4 lanes
  int64_t imm = 0;
  double fimm = 0;
  std::vector<int> args{};
  bool vector() const { return op == XOp::LoadVec || op == XOp::MakeVec; }
};

enum class SOp : uint8_t {
  Let,          // expr -> value vN (rendered once, then referenced by name)
  DeclVar,      // var of `type`, initialised from expr
  Assign,       // var = expr
  Store,        // buffer[index expr] = value expr (converted to the buffer's dtype)
  ForGrid,      // var over [0, count): the whole grid, one element per thread per step
  ForRows,      // var over [0, count): one workgroup per row, grid-stride over rows
  ForLanes,     // var over [0, count): the workgroup's threads stride over a row
  ForSeq,       // var over [0, count): sequential in one thread
  If,           // cond expr
  End,          // closes the innermost For*/If
  Reduce,       // var = reduction of var over the workgroup (fn = ReduceFn); all threads see it
  ArgReduce,    // (var, var2) = arg-reduction of (value, index) over the workgroup
  Barrier,      // workgroup barrier
  Error,        // if cond expr: record error `code` with detail exprs (index value, limit)
  SharedStore,  // shared array `buffer`[index expr] = expr
  DeclArray,    // per-thread array variable `var` of `type` and `code` elements
  ArrayStore,   // array `var`[index expr] = expr
  MmaTile,      // tensor-core block tile into array `var` (see MmaShape); targets without tensor
                // cores never receive it
  Attention,    // fused attention tile (kernels/attention): buffers the node's inputs, then its
                // output; args = tile, per tensor operand (q, k, v, [dout,] out) offset and
                // batch/head/row strides, [the lse and delta offsets,] then batch, heads, kv
                // heads, seq_q, seq_k, [scale,] scale * log2(e) (floats as bits); code = element
                // kind (bit 0: bf16), head dim 128 (bit 1), causal (bit 2), the node's mode
                // (bits 3-4, ir::AttentionMode), and bit kAttentionWithLseBit: the output
                // mode's kernel also writes the log-sum-exp (one more buffer after the output;
                // its offset is the last arg). CUDA only.
  StreamStore,  // buffer[index expr + i] = array `var`[args[0] + i] (args[0]: 0 when absent) for
                // i in [0, expr): a row staged in a per-thread array, stored past the caches
                // (the CPU target only; see Emitter::stream_store)
  Lstm,         // an LSTM recurrence's workgroup (kernels/rnn/lstm.cuh): buffers = the node's
                // four operands, its barrier words, then its output; args = the workgroup, per
                // operand (the four, then the output) element offset and three strides, the
                // barrier words' offset, then batch, steps, hidden, workgroups and the rows of
                // a workgroup's batch block; code = mode (bit 0, ir::LstmMode), reverse (bit 1),
                // hidden units per workgroup (bits 2-6). CUDA only.
};

inline constexpr int kAttentionWithLseBit = 6;

// Stmt::code of a Reduce whose max or min was accumulated by the plain comparison (acc > x ?
// acc : x), NaN tracked apart by its kernel (the CPU target's pipelined rows).
inline constexpr int kPlainExtreme = 1;

// The configuration of an MmaTile statement: a block of (warps_m * frags_m * 16) x
// (warps_n * frags_n * 8) outputs, accumulated in f32 over K through a `stages`-deep pipeline of
// k-tiles (`row_bytes` of k per row) staged in shared memory. Operand A is read K-major (k
// contiguous in memory) or M-major, B K-major or N-major. Packed into Stmt::code.
// A tensor-core block tile's geometry: warps along M and N, 16-row and 8-column mma fragments
// per warp along M and N, pipeline stages, and bytes of k per staged row of a K-major operand
// (64 or 128). `wgmma` tiles (Hopper, K-major A; TF32 through the copy engine) issue warpgroup
// instructions (wgmma.mma_async) instead of per-warp mma.sync: they have warps_n = 1 and frags_m =
// 1, so each warp still owns 16 rows by the whole block width and the accumulator layout is the
// same.
struct MmaTile {
  int warps_m = 2, warps_n = 4, frags_m = 4, frags_n = 4, stages = 3, row_bytes = 64;
  bool wgmma = false;

  int block_m() const { return warps_m * frags_m * 16; }
  int block_n() const { return warps_n * frags_n * 8; }
  int threads() const { return warps_m * warps_n * 32; }
  int accumulators() const { return frags_m * frags_n * 4; }  // per thread
};

// A tile with what the operands decide: the element kind and which operands are K-major.
struct MmaShape : MmaTile {
  // F32Simt: no tensor cores; the CUDA f32 vector tiles (simt_tile: 128 x 256 or 128 x 128
  // outputs, 8 x 16 or 8 x 8 per thread, 16-byte copies): the geometry, `stages` and `row_bytes`
  // (4 bytes per k) describe them.
  enum Kind : uint8_t { F16 = 0, BF16 = 1, TF32 = 2, F32Simt = 3 };
  Kind kind = BF16;
  bool a_kmajor = true, b_kmajor = false;
  // wgmma tiles: operands arrive through the copy engine (tensor maps tm0 for A, tm1 for B),
  // driven by an extra producer warpgroup after the block's warps (wgmma_tma_tile).
  bool tma = false;
  // TF32 wgmma with an N-major B (wgmma_tf32.cuh, through the copy engine): the tile computes
  // C^T = B^T A^T, so the geometry above (warps_m warps of 16 rows, block_n() wide) describes C^T
  // and its accumulators: the warps own C's columns. out_block_m() and out_block_n() are C's.
  bool swap = false;
  // The swapped TF32 tile in clusters of two workgroups sharing A's rows (wgmma_tf32.cuh).
  bool cluster = false;
  // A convolution's implicit GEMM (kernels/conv/conv_mma.cuh, mma.sync only): A is gathered from
  // the input through its strides, B is the weight's K-major rows; the statement's args are
  // ConvTileArgs' fields in order, then the block's first row and column.
  bool conv = false;

  int out_block_m() const { return swap ? block_n() : block_m(); }
  int out_block_n() const { return swap ? block_m() : block_n(); }
  int element_bytes() const { return kind == TF32 || kind == F32Simt ? 4 : 2; }
  // wgmma tiles add 1 KiB so that the stages can start on a swizzle atom (1024-byte) boundary.
  int shared_bytes() const {
    return stages * (block_m() + block_n()) * row_bytes + (wgmma ? 1024 : 0);
  }
  int pack() const {
    const uint32_t bits = kind | a_kmajor << 2 | b_kmajor << 3 | warps_m << 4 | warps_n << 8 |
                          frags_m << 12 | frags_n << 16 | stages << 22 | (row_bytes == 128) << 26 |
                          wgmma << 27 | tma << 28 | swap << 29 | cluster << 30 |
                          uint32_t{conv} << 31;
    return static_cast<int>(bits);
  }
  static MmaShape unpack(int packed) {
    const uint32_t c = static_cast<uint32_t>(packed);
    MmaShape s;
    s.kind = static_cast<Kind>(c & 3);
    s.a_kmajor = c >> 2 & 1;
    s.b_kmajor = c >> 3 & 1;
    s.warps_m = c >> 4 & 15;
    s.warps_n = c >> 8 & 15;
    s.frags_m = c >> 12 & 15;
    s.frags_n = c >> 16 & 63;
    s.stages = c >> 22 & 15;
    s.row_bytes = c >> 26 & 1 ? 128 : 64;
    s.wgmma = c >> 27 & 1;
    s.tma = c >> 28 & 1;
    s.swap = c >> 29 & 1;
    s.cluster = c >> 30 & 1;
    s.conv = c >> 31 & 1;
    return s;
  }
};

struct Stmt {
  SOp op;
  int expr = -1;    // Let, DeclVar, Assign, Store(value), If(cond), For*(count), Error(cond)
  int index = -1;   // Store: element index expr; Error: offending value; ForLanes: start (CPU)
  int limit = -1;   // Error: the bound
  int var = -1;     // DeclVar/Assign/For*/Reduce/ArgReduce
  int var2 = -1;    // ArgReduce: the index variable
  int buffer = -1;  // Store
  int code = 0;     // Error: site number; ForGrid: elements per thread per step (unroll)
  ir::ReduceFn fn = ir::ReduceFn::Sum;
  CType type = CType::Uint;  // DeclVar / Reduce accumulator type
  // MmaTile: buffer = A, buffer2 = B; args = A's element offset and leading stride, B's, then
  // M, N, K and the block's first row and column (Uint exprs).
  int buffer2 = -1;
  std::vector<int> args{};
  std::vector<int> buffers{};  // Attention: its buffers
};

struct BufferDecl {
  DType dtype;
  bool written;
  bool vec4 = false;  // declared as 4-element vectors (16-byte accesses); scalars still allowed
};

// A shared array's size when it is the kernel's dynamic shared memory instead (CUDA: what a
// copy-engine tile's pipeline used, reused after its k loop by the staged epilogue).
inline constexpr int kDynamicShared = -1;

struct SharedDecl {
  CType type;
  int size;  // elements, or kDynamicShared
};

struct KernelDesc {
  std::string name;  // readable, e.g. "fused_exp_mul_add"
  std::vector<BufferDecl> buffers;
  std::vector<Expr> exprs;
  std::vector<Stmt> body;
  std::vector<SharedDecl> shared;
  int num_vars = 0;
  int num_params = 0;
  uint32_t workgroup_size = 256;
  uint32_t dynamic_shared_bytes = 0;  // CUDA tensor-core tiles: their staging buffers
  // CUDA: workgroups that must fit on one SM at once (a register budget for the compiler), or 0.
  uint32_t min_workgroups_per_sm = 0;
  // CUDA: workgroups run in clusters of this many along x (the grid a multiple of it).
  uint32_t cluster_size = 1;
  // CUDA: tensor map parameters (tm0, tm1, ...) after the buffers, for bulk tensor copies.
  int tensor_maps = 0;
  bool uses_errors = false;  // binds the error buffer after the tensors
  // CUDA: every workgroup waits for all the others between steps (a grid barrier,
  // kernels/rnn): the grid must be resident at once, so the kernel never runs beside another.
  bool whole_grid = false;
  // The CPU target's host kernels (a matmul, a convolution) run the reference primitive: no
  // body, nothing to render; the launch stage calls the backend (jit/exec/launch.cc).
  bool host = false;
  // Pointwise kernels may write an output over an input's buffer (in-place reuse); other kernels
  // never see aliased buffers, so targets may promise the compiler there is no aliasing.
  bool buffers_may_alias = false;
  // Per parameter word: its value at lowering, and whether it is fixed by the plan's layout
  // (sizes, strides; not offsets or runtime scalars): a target may compile those in as
  // constants (the CPU target does, so that divisions by sizes become multiplications).
  std::vector<uint32_t> param_values;
  std::vector<char> param_fixed;
  // Parameters travel as push constants when they fit the 128 bytes every device offers,
  // else in a storage buffer at binding 0.
  static constexpr int kMaxPushWords = 32;
  bool push_params() const { return num_params <= kMaxPushWords; }
};

// n / d for a divisor d fixed at lowering, as a multiply and two shifts (Granlund and
// Montgomery's round-up method, exact for every 32-bit n and d >= 1):
// t = mulhi(n, magic), q = (t + ((n - t) >> shift1)) >> shift2.
struct FixedDivisor {
  uint32_t magic = 0, shift1 = 0, shift2 = 0;
};
FixedDivisor fixed_divisor(uint32_t d);

// A readable listing of the description (EMBER_DUMP=plan).
std::string describe(const KernelDesc& k);

}  // namespace ember::jit
