#include "frontend/matmul_precision.h"

#include "kernels/matmul/precision.h"

namespace ember {

void set_matmul_precision(MatmulPrecision precision) {
  jit::set_allow_tf32(precision == MatmulPrecision::High);
}

MatmulPrecision matmul_precision() {
  return jit::allow_tf32() ? MatmulPrecision::High : MatmulPrecision::Highest;
}

}  // namespace ember
