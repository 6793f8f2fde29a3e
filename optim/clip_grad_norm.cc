#include "optim/clip_grad_norm.h"

#include <cmath>
#include <string>
#include <vector>

#include "optim/grad_clipping.h"

namespace ember::optim {

namespace {

// One gradient's contribution to the total: max |g| for the infinity norm, else sum |g|^p, in
// f32 whatever the gradient's dtype, so gradients of mixed precision add up.
Tensor<1> partial_norm(const RawTensor& g, double p) {
  Tensor<1> flat(ops::cast(ops::reshape(g, {-1}), DType::F32), "clip_grad_norm");
  if (std::isinf(p)) return flat.abs().max();
  if (p == 2) return (flat * flat).sum();
  return flat.abs().powf_scalar(p).sum();
}

}  // namespace

Tensor<1> clip_grad_norm(GradientsParams& grads, double max_norm, double norm_type) {
  if (!(max_norm > 0) || !(norm_type > 0)) {
    throw Error("clip_grad_norm: max_norm and norm_type must be positive, got " +
                std::to_string(max_norm) + " and " + std::to_string(norm_type));
  }
  NoGradGuard no_grad;
  std::vector<ParamId> ids = grads.ids();
  if (ids.empty()) return Tensor<1>::from_data(TensorData(std::vector<float>{0}, Shape{1}));
  const bool inf = std::isinf(norm_type);
  std::optional<Tensor<1>> acc;
  for (ParamId id : ids) {
    Tensor<1> part = partial_norm(*grads.get_raw(id), norm_type);
    acc = !acc ? part : inf ? acc->max_pair(part) : *acc + part;
  }
  Tensor<1> total = inf ? *acc : norm_type == 2 ? acc->sqrt() : acc->powf_scalar(1 / norm_type);
  Tensor<1> coef = (max_norm / (total + kClipNormEpsilon)).clamp_max(1.0);
  for (ParamId id : ids) {
    RawTensor g = *grads.get_raw(id);
    RawTensor c = ops::cast(ops::unsqueeze(coef.raw(), g.rank()), g.dtype());
    grads.register_raw(id, ops::binary(ir::BinaryFn::Mul, g, c));
  }
  return total;
}

}  // namespace ember::optim
