#pragma once
// The matmul family's two lowerings: the SIMT template and the tile templates (tensor cores,
// the f32 vector tile), with the epilogue they share.
#include <vector>

#include "kernels/family.h"
#include "kernels/matmul/operands.h"

namespace ember::jit {

// Register-blocked SIMT matmul with the variant's block and stages.
void lower_matmul_simt(const ir::Graph& g, const Plan& plan, Emitter& e, const KernelPlan& kp,
                       const MatmulVariant& v, KernelGeometry& out);
// A tile template over operands `ops` (tile_operands): one MmaTile statement accumulates the block
// tile; the fused epilogue then runs per accumulator as in the SIMT template.
void lower_matmul_tile(const ir::Graph& g, Emitter& e, const KernelPlan& kp, TileOperands ops,
                       KernelGeometry& out);

// The epilogue at output (batch dims, m, n): the matmul's value there is `value` (an
// accumulator); every output of the kernel is stored when (m, n) lies inside M x N.
void store_matmul_outputs(Emitter& e, const KernelPlan& kp, int value,
                          const std::vector<int>& bdims, int m, int n, int pM, int pN);

}  // namespace ember::jit
