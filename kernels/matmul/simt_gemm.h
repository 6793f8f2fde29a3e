#pragma once
// The SIMT GEMM loop shared by the matmul and conv families: a batch of M x N x K products
// tiled 16R x 16R per workgroup of 16 x 16 threads, K staged through shared memory 16 at a
// time. What a family adds is how an operand element is read (a matmul's operand, or an
// implicit-GEMM view of a convolution's input) and what is stored per output.
#include <functional>

#include "kernels/family.h"

namespace ember::jit {

struct SimtGemm {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  int block = 1;    // RM: each thread computes RM x RN outputs
  int block_n = 0;  // RN; 0: square (RN = RM)
  int stages = 1;   // 2: the next k-tile waits in registers while the current one is multiplied
  CType acc = CType::Float;
  // Whether consecutive threads stage A along m and B along k (each operand's rows), rather than
  // along its columns: the way that keeps the staging loads coalesced (a transposed view, an
  // implicit-GEMM input whose consecutive rows are consecutive pixels).
  bool a_along_rows = false, b_along_rows = false;
  // Once per tile, before any operand is read: the batch index `b` (an expression).
  std::function<void(int b)> begin_batch = [](int) {};
  // A[b][row][col] and B[b][row][col] as acc-typed expressions for in-range (row, col).
  std::function<int(int row, int col)> load_a, load_b;
  // The epilogue at (m, n), inside M x N: `value` is the product there, of type acc.
  std::function<void(int m, int n, int value)> store;
};

// Emits the loop over every (batch, tile) and fills the launch geometry.
void emit_simt_gemm(Emitter& e, const SimtGemm& gemm, KernelGeometry& out);

}  // namespace ember::jit
