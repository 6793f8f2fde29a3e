#include "runtime/cpu/blas.h"

#include "ir/error.h"
#include "runtime/cpu/thread_pool.h"

#ifdef EMBER_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace ember::runtime::cpu {

#ifdef EMBER_HAVE_OPENBLAS

namespace {

// OpenBLAS keeps threads of its own: as many as the CPU target uses (EMBER_NUM_THREADS).
void init_threads() {
  static const bool done = [] {
    openblas_set_num_threads(num_threads());
    return true;
  }();
  (void)done;
}

CBLAS_TRANSPOSE op(bool cols) { return cols ? CblasTrans : CblasNoTrans; }

}  // namespace

bool have_blas() { return true; }

void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const float* a,
               int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  init_threads();
  cblas_sgemm(CblasRowMajor, op(a_cols), op(b_cols), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0f, c, static_cast<blasint>(ldc));
}

void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const double* a,
               int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  init_threads();
  cblas_dgemm(CblasRowMajor, op(a_cols), op(b_cols), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0, c, static_cast<blasint>(ldc));
}

#else

bool have_blas() { return false; }

void blas_gemm(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
               float*, int64_t) {
  throw Error("cpu: built without a BLAS");
}
void blas_gemm(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*,
               int64_t, double*, int64_t) {
  throw Error("cpu: built without a BLAS");
}

#endif

}  // namespace ember::runtime::cpu
