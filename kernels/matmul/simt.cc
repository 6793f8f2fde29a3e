// The SIMT matmul template (every device) and the epilogue the tile templates share.
#include "kernels/matmul/lowering.h"
#include "kernels/matmul/simt_gemm.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;
using ir::OpKind;
using ir::ValueId;

// Whether the operand's columns (its last dim) are not the last dim of the buffer it is read
// from: a transposed view (backward's h^T @ g). Staging then walks the rows with consecutive
// threads so that loads stay coalesced.
bool reads_transposed(const ir::Graph& g, const Plan& plan, ValueId v) {
  int d = g.type(v).shape.rank() - 1;
  while (!plan.stored[v]) {
    const ir::Node& n = g.node(v);
    if (n.op == OpKind::Permute) {
      d = n.get<ir::PermuteAttrs>().perm[d];
    } else if (n.op != OpKind::Cast && n.op != OpKind::Expand && n.op != OpKind::Slice &&
               n.op != OpKind::Flip && n.op != OpKind::Unary) {
      return false;  // reshapes and computed values: assume the usual layout
    }
    v = n.inputs[0];
  }
  return d != g.type(v).shape.rank() - 1;
}

}  // namespace

void store_matmul_outputs(Emitter& e, const KernelPlan& kp, int value,
                          const std::vector<int>& bdims, int m, int n, int pM, int pN) {
  e.provide(kp.anchor, value);
  e.begin_if(e.bin(BinaryFn::LogicalAnd, e.bin(BinaryFn::Lt, m, pM), e.bin(BinaryFn::Lt, n, pN)));
  const int r = kp.shape.rank();
  Index oidx{kp.shape, std::vector<int>(r, -1), -1};
  for (int d = 0; d < r - 2; ++d) oidx.dims[d] = bdims[d];
  oidx.dims[r - 2] = m;
  oidx.dims[r - 1] = n;
  int lin = e.linear(oidx);
  for (ValueId o : kp.outputs) e.store(o, lin, e.value(o, oidx));
  e.end();
}

// The SIMT matmul: the shared GEMM loop over the matmul's operands (views and casts of them
// inlined), R from the variant or the heuristic.
void lower_matmul_simt(const ir::Graph& g, const Plan& plan, Emitter& e, const KernelPlan& kp,
                       const MatmulVariant& v, KernelGeometry& out) {
  ValueId mm = kp.anchor;
  ValueId a = g.node(mm).inputs[0], b = g.node(mm).inputs[1];
  const Shape& os = kp.shape;
  const Shape& as = g.type(a).shape;
  const Shape& bs = g.type(b).shape;
  const int r = os.rank();
  Shape batch(std::vector<int64_t>(os.dims.begin(), os.dims.end() - 2));
  SimtGemm gemm;
  gemm.batch = batch.numel();
  gemm.M = os[r - 2];
  gemm.N = os[r - 1];
  gemm.K = as[r - 1];
  // (A vector tile's operands did not suit it: this template's block for the output instead.)
  gemm.block =
      v.block > 0 && !is_vector_tile(v.block) ? v.block : matmul_block(gemm.M, gemm.N, gemm.batch);
  gemm.stages = v.stages;
  gemm.acc = compute_type(g.type(mm).dtype);
  gemm.a_along_rows = reads_transposed(g, plan, a);
  gemm.b_along_rows = reads_transposed(g, plan, b);
  std::vector<int> bdims;
  gemm.begin_batch = [&](int bi) {
    Index batch_idx{batch, std::vector<int>(batch.rank(), -1), bi};
    for (int d = 0; d < batch.rank(); ++d) bdims.push_back(e.dim(batch_idx, d));
  };
  auto operand = [&](ValueId x, const Shape& s, int row, int col) {
    Index idx{s, std::vector<int>(s.rank(), -1), -1};
    for (int d = 0; d < r - 2; ++d) idx.dims[d] = s[d] == 1 ? e.const_u(0) : bdims[d];
    idx.dims[r - 2] = row;
    idx.dims[r - 1] = col;
    return e.cast(e.value(x, idx), gemm.acc);
  };
  gemm.load_a = [&](int row, int col) { return operand(a, as, row, col); };
  gemm.load_b = [&](int row, int col) { return operand(b, bs, row, col); };
  const int pM = e.param_u("M", static_cast<uint32_t>(gemm.M));
  const int pN = e.param_u("N", static_cast<uint32_t>(gemm.N));
  gemm.store = [&](int m, int n, int value) {
    store_matmul_outputs(e, kp, e.cast(value, compute_type(g.type(mm).dtype)), bdims, m, n, pM, pN);
  };
  emit_simt_gemm(e, gemm, out);
}

}  // namespace ember::jit
