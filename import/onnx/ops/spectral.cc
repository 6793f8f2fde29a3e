// Spectral ops: DFT and STFT as products with cosine and sine matrices (computed on the host,
// so the transforms are matmuls the tape sees), and MelWeightMatrix (a constant filter bank).
#include <cmath>
#include <numbers>

#include "frontend/tensor.h"
#include "import/onnx/ops/groups.h"
#include "import/onnx/ops/helpers.h"
#include "import/onnx/tensor_proto.h"

namespace ember::onnx_import {
namespace {

using ir::BinaryFn;

// [n, bins] matrices of cos and sin(2 pi j k / n) for j < n, k < bins.
std::pair<RawTensor, RawTensor> dft_matrices(int64_t n, int64_t bins, DType dt, const Device& d) {
  std::vector<double> cs(n * bins), sn(n * bins);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < bins; ++k) {
      double a = 2 * std::numbers::pi * static_cast<double>((j * k) % n) / n;
      cs[j * bins + k] = std::cos(a);
      sn[j * bins + k] = std::sin(a);
    }
  }
  auto up = [&](const std::vector<double>& v) {
    return ops::cast(detail::raw_from_data(TensorData(v, Shape{n, bins}), d), dt);
  };
  return {up(cs), up(sn)};
}

// The transform along the last dim of real and imaginary parts [..., n]: [..., bins] each.
std::pair<RawTensor, RawTensor> dft_last(const RawTensor& re, const RawTensor& im, int64_t bins,
                                         bool inverse) {
  int64_t n = re.shape()[re.rank() - 1];
  auto [c, s] = dft_matrices(n, bins, re.dtype(), re.device());
  c = align(c, re.rank());
  s = align(s, re.rank());
  RawTensor rc = ops::matmul(re, c), rs = ops::matmul(re, s);
  RawTensor ic = ops::matmul(im, c), is = ops::matmul(im, s);
  // e^{-i a} forward, e^{+i a} inverse (scaled by 1 / n).
  RawTensor yr = inverse ? bin(BinaryFn::Sub, rc, is) : bin(BinaryFn::Add, rc, is);
  RawTensor yi = inverse ? bin(BinaryFn::Add, ic, rs) : bin(BinaryFn::Sub, ic, rs);
  if (inverse) {
    yr = bin(BinaryFn::Div, yr, static_cast<double>(n));
    yi = bin(BinaryFn::Div, yi, static_cast<double>(n));
  }
  return {yr, yi};
}

// The real and imaginary parts of [..., 1 or 2] (a real signal's imaginary part is zeros).
std::pair<RawTensor, RawTensor> parts(const RawTensor& x) {
  int last = x.rank() - 1;
  RawTensor re = ops::squeeze(ops::narrow(x, last, 0, 1), last);
  if (x.shape()[last] == 1) return {re, ops::zeros(re.shape(), re.dtype(), re.device())};
  return {re, ops::squeeze(ops::narrow(x, last, 1, 1), last)};
}

RawTensor complex(const RawTensor& re, const RawTensor& im) {
  return ops::stack({re, im}, re.rank());
}

Outputs dft(NodeContext& c) {
  RawTensor x = c.tensor(0);
  int rank = x.rank();
  int64_t axis = c.axis(c.attr_int("axis", 1), rank - 1);
  auto [re, im] = parts(x);
  re = ops::movedim(re, {axis}, {-1});
  im = ops::movedim(im, {axis}, {-1});
  int64_t n = re.shape()[re.rank() - 1];
  int64_t len = c.has_input(1) ? static_cast<int64_t>(c.scalar_input(1)) : n;
  if (len != n) {  // zero-padded or truncated to the transform's length
    std::vector<std::pair<int64_t, int64_t>> p{{0, len - n}};
    re = ops::pad(re, p, Scalar(0.0));
    im = ops::pad(im, p, Scalar(0.0));
  }
  bool inverse = c.attr_int("inverse", 0);
  int64_t bins = c.attr_int("onesided", 0) ? len / 2 + 1 : len;
  auto [yr, yi] = dft_last(re, im, bins, inverse);
  yr = ops::movedim(yr, {-1}, {axis});
  yi = ops::movedim(yi, {-1}, {axis});
  return {Value::tensor(complex(yr, yi))};
}

// Frames of `frame_length` every `frame_step` samples, windowed, each transformed.
Outputs stft(NodeContext& c) {
  RawTensor x = c.tensor(0);  // [batch, length, 1 or 2]
  int64_t step = static_cast<int64_t>(c.scalar_input(1));
  int64_t frame = c.has_input(3) ? static_cast<int64_t>(c.scalar_input(3)) : c.input(2).dims()[0];
  int64_t length = x.shape()[1], frames = (length - frame) / step + 1;
  std::vector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t l = 0; l < frame; ++l) idx.push_back(f * step + l);
  }
  RawTensor sel = detail::raw_from_data(TensorData(idx), x.device());
  RawTensor framed = ops::select(x, 1, sel);  // [batch, frames * frame, ch]
  framed = ops::reshape(framed, {x.shape()[0], frames, frame, x.shape()[2]});
  auto [re, im] = parts(framed);  // [batch, frames, frame]
  if (c.has_input(2)) {
    RawTensor w = align(ops::cast(c.tensor(2), re.dtype()), 3);
    re = bin(BinaryFn::Mul, re, w);
    im = bin(BinaryFn::Mul, im, w);
  }
  int64_t bins = c.attr_int("onesided", 1) ? frame / 2 + 1 : frame;
  auto [yr, yi] = dft_last(re, im, bins, false);
  return {Value::tensor(complex(yr, yi))};
}

// Triangular filters between mel-spaced edges, mapped to DFT bins, as ONNX's reference does.
Outputs mel_weight_matrix(NodeContext& c) {
  int64_t mels = static_cast<int64_t>(c.scalar_input(0));
  int64_t dft_length = static_cast<int64_t>(c.scalar_input(1));
  double rate = c.scalar_input(2), lo = c.scalar_input(3), hi = c.scalar_input(4);
  int64_t spectrum = dft_length / 2 + 1;
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  double lo_mel = mel(lo), step = (mel(hi) - lo_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * (std::pow(10, (i * step + lo_mel) / 2595) - 1);
    edge[i] = static_cast<int64_t>(std::floor((dft_length + 1) * hz / rate));
  }
  std::vector<double> w(spectrum * mels, 0.0);
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = edge[i], center = edge[i + 1], right = edge[i + 2];
    if (center == left) {
      w[center * mels + i] = 1;
    } else {
      for (int64_t j = left; j <= center; ++j) {
        w[j * mels + i] = static_cast<double>(j - left) / static_cast<double>(center - left);
      }
    }
    for (int64_t j = center; j < right; ++j) {
      w[j * mels + i] = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
  }
  auto dt = to_dtype(static_cast<int32_t>(c.attr_int("output_datatype", 1)));
  if (!dt) c.fail("output_datatype Ember lacks");
  return {Value::known(TensorData(w, Shape{spectrum, mels}).convert(*dt))};
}

}  // namespace

void register_spectral(Registry& r) {
  r.add("DFT", {dft, {"axis", "inverse", "onesided"}});
  r.add("STFT", {stft, {"onesided"}});
  r.add("MelWeightMatrix", {mel_weight_matrix, {"output_datatype"}});
}

}  // namespace ember::onnx_import
