#include "kernels/registry.h"

#include "kernels/conv/family.h"
#include "kernels/matmul/family.h"
#include "kernels/pointwise/family.h"
#include "kernels/row/family.h"
#include "kernels/scatter/family.h"
#include "kernels/sort/family.h"

namespace ember::jit {

std::span<const Family* const> families() {
  // One line per family. Order matters twice: the first family that anchors a node takes it,
  // and rewrites run in this order (split-K before long reductions are split).
  static const Family* const all[] = {
      &matmul_family(), &conv_family(),    &row_family(),
      &sort_family(),   &scatter_family(), &pointwise_family(),
  };
  return all;
}

const Family& family_for(const ir::Node& n) {
  for (const Family* f : families()) {
    if (f->anchors(n)) return *f;
  }
  return pointwise_family();
}

}  // namespace ember::jit
