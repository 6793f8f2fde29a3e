#pragma once
// Convolution, pooling and resampling on rank-erased tensors ([batch, channels, spatial...]),
// the functional ops behind ember::module (frontend/module.h). Convolutions record the Conv
// primitive (transposed ones as a convolution of the dilated input); pooling and resampling are
// compositions of views, selects and elementwise ops that the JIT fuses.
#include <optional>
#include <vector>

#include "frontend/raw_tensor.h"

namespace ember::ops {

struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
  std::vector<int64_t> padding_out;  // transposed convolutions only
};

RawTensor conv(const char* op, const RawTensor& x, const RawTensor& weight,
               const std::optional<RawTensor>& bias, const ConvArgs& args);
RawTensor conv_transpose(const char* op, const RawTensor& x, const RawTensor& weight,
                         const std::optional<RawTensor>& bias, const ConvArgs& args);

struct PoolArgs {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
  bool count_include_pad = true;  // average pooling
};

// Max pooling; `indices` (if given) receives each maximum's flat index in its input plane.
RawTensor max_pool(const char* op, const RawTensor& x, const PoolArgs& args,
                   RawTensor* indices = nullptr);
RawTensor avg_pool(const char* op, const RawTensor& x, const PoolArgs& args);
RawTensor adaptive_avg_pool(const char* op, const RawTensor& x, const std::vector<int64_t>& out);
RawTensor adaptive_max_pool(const char* op, const RawTensor& x, const std::vector<int64_t>& out);

enum class InterpolateMode { Nearest, Bilinear, Bicubic };
RawTensor interpolate(const char* op, const RawTensor& x, const std::vector<int64_t>& out,
                      InterpolateMode mode, bool align_corners);
// [N, C, H, W] -> [N, C * kh * kw, L]: every patch as a column (im2col).
RawTensor unfold4d(const RawTensor& x, const std::vector<int64_t>& kernel, const PoolArgs& args);
RawTensor pixel_shuffle(const RawTensor& x, int64_t factor);

}  // namespace ember::ops
