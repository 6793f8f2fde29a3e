#pragma once
// A kept, threaded BLAS for the CPU's f32/f64 products where the build found one (OpenBLAS from
// Debian's libopenblas-dev: kernels for the running CPU chosen at run time, threads sized like
// the CPU target's pool); without it the callers use Eigen.
#include <cstdint>

namespace ember::runtime::cpu {

// Whether blas_gemm is available.
bool have_blas();

// c (m x n, row-major, row stride ldc) = a (m x k) * b (k x n). Each operand is row-major with
// row stride ld, or column-major (its transpose row-major, stride ld) when *_cols is set.
void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const float* a,
               int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);
void blas_gemm(bool a_cols, bool b_cols, int64_t m, int64_t n, int64_t k, const double* a,
               int64_t lda, const double* b, int64_t ldb, double* c, int64_t ldc);

}  // namespace ember::runtime::cpu
