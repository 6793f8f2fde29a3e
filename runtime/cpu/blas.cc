#include "runtime/cpu/blas.h"

#include <algorithm>

#include "ir/error.h"
#include "runtime/cpu/thread_pool.h"

#ifdef EMBER_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace ember::runtime::cpu {

#ifdef EMBER_HAVE_OPENBLAS

namespace {

// OpenBLAS runs one thread per call: the products are split over the CPU target's own pool
// instead (OpenBLAS's idle threads spin and yield, and took cores from the pool's workers:
// the MLP step was 25% slower with both).
void init_threads() {
  static const bool done = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)done;
}

CBLAS_TRANSPOSE op(bool cols) { return cols ? CblasTrans : CblasNoTrans; }

void gemm_block(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const float* a,
                int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, op(a_cols), op(b_cols), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0f, c, static_cast<blasint>(ldc));
}

void gemm_block(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const double* a,
                int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, op(a_cols), op(b_cols), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), 0.0, c, static_cast<blasint>(ldc));
}

// Products below this many multiply-adds run on the calling thread.
constexpr int64_t kMinParallelMacs = int64_t{1} << 18;

// Splits the output's longer side over the pool: rows of a and c, or columns of b and c.
template <class T>
void split_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                const T* b, int64_t ldb, T* c, int64_t ldc) {
  init_threads();
  const int threads = num_threads();
  const int64_t side = std::max(m, n);
  const int parts =
      m * n * k < kMinParallelMacs ? 1 : static_cast<int>(std::min<int64_t>(threads, side));
  if (parts <= 1) return gemm_block(a_cols, b_cols, m, n, k, a, lda, b, ldb, c, ldc);
  run_chunks(parts, [&](int p) {
    const int64_t lo = side * p / parts, hi = side * (p + 1) / parts;
    if (m >= n) {
      gemm_block(a_cols, b_cols, hi - lo, n, k, a + lo * (a_cols ? 1 : lda), lda, b, ldb,
                 c + lo * ldc, ldc);
    } else {
      gemm_block(a_cols, b_cols, m, hi - lo, k, a, lda, b + lo * (b_cols ? ldb : 1), ldb, c + lo,
                 ldc);
    }
  });
}

}  // namespace

bool have_blas() { return true; }

void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const float* a,
               int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  split_gemm(a_cols, b_cols, m, n, k, a, lda, b, ldb, c, ldc);
}

void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const double* a,
               int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc) {
  split_gemm(a_cols, b_cols, m, n, k, a, lda, b, ldb, c, ldc);
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
