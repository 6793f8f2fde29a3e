#pragma once
// Segmentation and fusion: which values of a flushed graph are stored to memory, and which kernel
// computes each of them. Everything not stored is recomputed inline, at the index where a kernel
// needs it (views are index arithmetic, elementwise chains are expressions).
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ember::jit {

enum class KernelKind : uint8_t {
  Pointwise,  // one thread per element of `shape`; stores every output at that element
  Row,        // one workgroup per row of `shape` along `axis`: reductions, then an epilogue
  Matmul,     // tiled matmul of `anchor`, elementwise epilogue on its output
  Sort,       // `anchor` (values or indices) along its axis
  Scatter,    // `anchor` (scatter-add) over the target's shape
};
const char* kernel_kind_name(KernelKind k);

// KernelPlan::block selecting the CUDA f32 vector tile (MmaShape::F32Simt, 128 x 256) instead of
// the SIMT template; where its operands do not suit it (an M-major A, a K-major B, unaligned
// rows), the SIMT template with block 8 runs.
inline constexpr int kVectorTileBlock = 16;

struct KernelPlan {
  KernelKind kind;
  Shape shape;                          // the index space (row kernels: the unreduced shape)
  int axis = -1;                        // row kernels: the reduced axis
  ir::ValueId anchor = -1;              // matmul / sort / scatter node
  std::vector<ir::ValueId> reductions;  // row kernels: computed in this order
  std::vector<ir::ValueId> outputs;     // values this kernel stores
  int block = 0;  // matmul: per-thread output block edge (autotuned or heuristic; 0: heuristic)
  // matmul: > 0 uses tensor-core tile kMmaTiles[mma - 1] when the operands allow it (CUDA,
  // f16/bf16, or f32 with TF32 allowed); the SIMT template with `block` otherwise.
  int mma = 0;
  // matmul, SIMT template: 2 loads the next k-tile into registers while the current one is
  // multiplied, 1 loads then multiplies (MatmulChoice::stages).
  int stages = 1;
  // row kernels: threads per workgroup (autotuned or heuristic; 0: kRowWorkgroupDefault)
  int workgroup = 0;
  // pointwise kernels: threads, elements per thread and vector width (jit/pointwise_tuning.h;
  // 0: the default), chosen when the plan is made; a plan reused at other sizes keeps it.
  int pointwise = 0;
};

struct Plan {
  std::vector<KernelPlan> kernels;  // in launch order
  std::vector<char> stored;         // per value: lives in a buffer (inputs included)
  std::vector<int> producer;        // per value: kernel that computes it, -1 for inputs
};

// Explicit recompute-versus-store thresholds. An elementwise value with several consumers is
// recomputed by each of them while its expression stays small (cheap ALU work beats a round
// trip through memory on every device Ember targets), and stored once it is larger.
inline constexpr int kMaxRecomputeOps = 12;
// Inputs of matmul, sort and scatter are read many times per output element, so anything more
// than index arithmetic (views, casts, constants) feeding them is stored first.

// The index space of a planned kernel in graph g: what `shape` holds, recomputed for a graph of
// the same structure and other sizes (a plan-cache hit).
Shape index_space(const ir::Graph& g, const KernelPlan& kp);

// fusion=false: every primitive is its own kernel (the EMBER_FUSION=0 baseline).
Plan make_plan(const ir::Graph& g, const std::vector<ir::ValueId>& outputs, bool fusion);
std::string print_plan(const ir::Graph& g, const Plan& p);

}  // namespace ember::jit
