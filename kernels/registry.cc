#include "kernels/registry.h"

#include "kernels/collective/family.h"
#include "kernels/conv/family.h"
#include "kernels/host/family.h"
#include "kernels/matmul/family.h"
#include "kernels/pointwise/family.h"
#include "kernels/row/family.h"
#include "kernels/scatter/family.h"
#include "kernels/sort/family.h"

namespace ember::jit {

FamilySet families() {
  // One line per family. Order matters twice: the first family that anchors a node takes it,
  // and rewrites run in this order (split-K before long reductions are split).
  static const Family* const all[] = {
      &matmul_family(),  &conv_family(),       &row_family(),       &sort_family(),
      &scatter_family(), &collective_family(), &pointwise_family(),
  };
  return all;
}

FamilySet families(const runtime::Backend& backend) {
  if (backend.kind() != runtime::DeviceKind::Cpu) return families();
  static const Family* const cpu[] = {&host_family(), &row_family(), &collective_family(),
                                      &pointwise_family()};
  return cpu;
}

const Family& family_for(const ir::Node& n, FamilySet set) {
  for (const Family* f : set) {
    if (f->anchors(n)) return *f;
  }
  return pointwise_family();
}

}  // namespace ember::jit
