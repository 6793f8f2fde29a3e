#include "kernels/registry.h"

#include "kernels/attention/family.h"
#include "kernels/collective/family.h"
#include "kernels/conv/family.h"
#include "kernels/host/family.h"
#include "kernels/matmul/family.h"
#include "kernels/pointwise/family.h"
#include "kernels/rnn/family.h"
#include "kernels/row/family.h"
#include "kernels/scatter/family.h"
#include "kernels/sort/family.h"

namespace ember::jit {

FamilySet families() {
  // One line per family. Order matters twice: the first family that anchors a node takes it,
  // and rewrites run in this order (attention composites first, where no fused kernel runs
  // them: their matmuls may then be split over K, before long reductions are split).
  static const Family* const all[] = {
      &attention_family(), &rnn_family(),        &matmul_family(),
      &conv_family(),      &row_family(),        &sort_family(),
      &scatter_family(),   &collective_family(), &pointwise_family(),
  };
  return all;
}

FamilySet families(const runtime::Backend& backend) {
  if (backend.kind() != runtime::DeviceKind::Cpu) return families();
  // The attention and rnn families only rewrite here: the CPU target runs their composites.
  static const Family* const cpu[] = {&attention_family(),  &rnn_family(),
                                      &host_family(),       &row_family(),
                                      &collective_family(), &pointwise_family()};
  return cpu;
}

const Family& family_for(const ir::Node& n, FamilySet set) {
  for (const Family* f : set) {
    if (f->anchors(n)) return *f;
  }
  return pointwise_family();
}

}  // namespace ember::jit
