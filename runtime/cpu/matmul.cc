// Batched matmul on Eigen. Batch dims broadcast; each matrix operand is read in place when its
// last two dims are row- or column-major, copied otherwise. f16/bf16 compute in f32.
#include <Eigen/Core>
#include <algorithm>
#include <type_traits>

#include "runtime/cpu/blas.h"
#include "runtime/cpu/cpu_buffer.h"
#include "runtime/cpu/dispatch.h"
#include "runtime/cpu/kernels.h"
#include "runtime/cpu/strided.h"

namespace ember::runtime::cpu {
namespace {

enum class Major { Row, Col, None };

Major major_of(const Array& a) {
  int r = a.type.shape.rank();
  int64_t rows = a.type.shape[r - 2], cols = a.type.shape[r - 1];
  int64_t s_row = a.strides[r - 2], s_col = a.strides[r - 1];
  if ((s_col == 1 || cols == 1) && (s_row >= cols || rows == 1) && s_row > 0) return Major::Row;
  if ((s_row == 1 || rows == 1) && (s_col >= rows || cols == 1) && s_col > 0) return Major::Col;
  return Major::None;
}

// Calls f(map) with an Eigen map of the matrix at p, in the operand's own layout.
template <class T, class F>
void with_matrix(const T* p, const Array& a, Major major, F&& f) {
  using Eigen::Dynamic;
  int r = a.type.shape.rank();
  int64_t rows = a.type.shape[r - 2], cols = a.type.shape[r - 1];
  if (major == Major::Row) {
    using M = Eigen::Matrix<T, Dynamic, Dynamic, Eigen::RowMajor>;
    int64_t ld = rows == 1 ? cols : a.strides[r - 2];
    f(Eigen::Map<const M, 0, Eigen::OuterStride<>>(p, rows, cols, Eigen::OuterStride<>(ld)));
  } else {
    using M = Eigen::Matrix<T, Dynamic, Dynamic, Eigen::ColMajor>;
    int64_t ld = cols == 1 ? rows : a.strides[r - 1];
    f(Eigen::Map<const M, 0, Eigen::OuterStride<>>(p, rows, cols, Eigen::OuterStride<>(ld)));
  }
}

// The leading stride of a row- or column-major matrix operand (its row or column stride).
int64_t leading(const Array& a, Major major) {
  int r = a.type.shape.rank();
  int64_t rows = a.type.shape[r - 2], cols = a.type.shape[r - 1];
  if (major == Major::Row) return rows == 1 ? std::max<int64_t>(cols, 1) : a.strides[r - 2];
  return cols == 1 ? std::max<int64_t>(rows, 1) : a.strides[r - 1];
}

template <class T>
void matmul_typed(const Array& a, const Array& b, Array& out) {
  using Eigen::Dynamic;
  using OutMat = Eigen::Matrix<T, Dynamic, Dynamic, Eigen::RowMajor>;
  const Shape& os = out.type.shape;
  int r = os.rank();
  int64_t m = os[r - 2], n = os[r - 1];
  Major ma = major_of(a), mb = major_of(b);
  // Iterate over batch positions: shape with the matrix dims set to 1.
  Shape batch = os;
  batch[r - 2] = batch[r - 1] = 1;
  auto as = broadcast_strides(a.type.shape, a.strides, os);
  auto bs = broadcast_strides(b.type.shape, b.strides, os);
  const T* ap = base_ptr<T>(a);
  const T* bp = base_ptr<T>(b);
  T* op = base_ptr<T>(out);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (have_blas()) {
      const int64_t k = a.type.shape[r - 1];
      const int64_t lda = leading(a, ma), ldb = leading(b, mb);
      for_each_row<3>(
          batch, {out.strides.data(), as.data(), bs.data()}, [&](auto off, int64_t len, auto st) {
            for (int64_t i = 0; i < len; ++i) {
              blas_gemm(ma == Major::Col, mb == Major::Col, m, n, k, ap + off[1] + i * st[1], lda,
                        bp + off[2] + i * st[2], ldb, op + off[0] + i * st[0], n);
            }
          });
      return;
    }
  }
  for_each_row<3>(batch, {out.strides.data(), as.data(), bs.data()},
                  [&](auto off, int64_t len, auto st) {
                    for (int64_t i = 0; i < len; ++i) {
                      Eigen::Map<OutMat> o(op + off[0] + i * st[0], m, n);
                      with_matrix(ap + off[1] + i * st[1], a, ma, [&](const auto& am) {
                        with_matrix(bp + off[2] + i * st[2], b, mb,
                                    [&](const auto& bm) { o.noalias() = am * bm; });
                      });
                    }
                  });
}

}  // namespace

Array run_matmul(const Array& a_in, const Array& b_in, const TensorType& out_type) {
  DType t = out_type.dtype;
  if (t == DType::F16 || t == DType::BF16) {
    TensorType f32_out{DType::F32, out_type.shape};
    return run_cast(run_matmul(run_cast(a_in, DType::F32), run_cast(b_in, DType::F32), f32_out), t);
  }
  Array a = major_of(a_in) == Major::None ? make_contiguous(a_in) : a_in;
  Array b = major_of(b_in) == Major::None ? make_contiguous(b_in) : b_in;
  int r = out_type.shape.rank();
  if (a.type.shape[r - 1] == 0) return run_full(out_type, ir::Scalar::from_int(0));
  Array out = allocate(out_type);
  if (out_type.shape.numel() == 0) return out;
  dispatch_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsHalf<T> && !std::is_same_v<T, bool>) matmul_typed<T>(a, b, out);
  });
  return out;
}

}  // namespace ember::runtime::cpu
