#include "kernels/pointwise/in_place.h"

#include <limits>

namespace ember::jit {

std::vector<ir::ValueId> in_place_donors(const KernelDesc& k,
                                         const std::vector<ir::ValueId>& bindings,
                                         const std::vector<bool>& writes,
                                         const std::vector<bool>& at_home) {
  // Statement positions: the first store of any buffer, and each buffer's last load. Loads are
  // always Let statements of their own (only parameters, constants, variables and builtins are
  // inlined into other expressions), so a Let's position is where the load happens.
  size_t first_store = std::numeric_limits<size_t>::max();
  std::vector<long> last_load(bindings.size(), -1);
  for (size_t s = 0; s < k.body.size(); ++s) {
    const Stmt& st = k.body[s];
    if (st.op == SOp::Store || st.op == SOp::StreamStore) {
      first_store = std::min(first_store, s);
    } else if (st.op == SOp::Let) {
      const Expr& e = k.exprs[st.expr];
      if (e.op == XOp::Load || e.op == XOp::LoadVec) last_load[e.imm] = static_cast<long>(s);
    }
  }
  std::vector<ir::ValueId> out;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (writes[i] || !at_home[i]) continue;
    if (last_load[i] >= 0 && static_cast<size_t>(last_load[i]) > first_store) continue;
    out.push_back(bindings[i]);
  }
  return out;
}

}  // namespace ember::jit
