#include "kernels/conv/output.h"

namespace ember::jit {

using ir::BinaryFn;

std::vector<int> unflatten(Emitter& e, int flat, const std::vector<int>& dims) {
  std::vector<int> out(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      out[d] = flat;
    } else {
      out[d] = e.bin(BinaryFn::Rem, flat, dims[d]);
      flat = e.bin(BinaryFn::Div, flat, dims[d]);
    }
  }
  return out;
}

ConvOutput::ConvOutput(const ir::Graph& g, Emitter& e, const KernelPlan& kp, int64_t M, int64_t N)
    : g_(g), e_(e), kp_(kp) {
  const ir::ValueId x = g.node(kp.anchor).inputs[0];
  const Shape &xs = g.type(x).shape, &ys = kp.shape;
  m_dims_.push_back(e.size_param(xs, 0, "conv_x"));
  for (int d = 2; d < ys.rank(); ++d) m_dims_.push_back(e.size_param(ys, d, "conv_y"));
  p_og_ = e.const_u(static_cast<uint64_t>(N));
  pM_ = e.param_u("M", static_cast<uint32_t>(M));
  pN_ = e.param_u("N", static_cast<uint32_t>(N));
}

void ConvOutput::store(int group, int row, int column, int value) const {
  const ir::ValueId y = kp_.anchor;
  const Shape& ys = kp_.shape;
  const int r = ys.rank();
  e_.provide(y, e_.cast(value, compute_type(g_.type(y).dtype)));
  e_.begin_if(e_.bin(BinaryFn::LogicalAnd, e_.bin(BinaryFn::Lt, row, pM_),
                     e_.bin(BinaryFn::Lt, column, pN_)));
  std::vector<int> m = unflatten(e_, row, m_dims_);
  Index oidx{ys, std::vector<int>(r, -1), -1};
  oidx.dims[0] = m[0];
  oidx.dims[1] = e_.bin(BinaryFn::Add, e_.bin(BinaryFn::Mul, group, p_og_), column);
  for (int d = 0; d < r - 2; ++d) oidx.dims[d + 2] = m[d + 1];
  int lin = e_.linear(oidx);
  for (ir::ValueId o : kp_.outputs) e_.store(o, lin, e_.value(o, oidx));
  e_.end();
}

}  // namespace ember::jit
