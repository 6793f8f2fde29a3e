#include "optim/clip_grad_norm.h"

#include <cmath>
#include <string>
#include <vector>

#include "optim/grad_clipping.h"

namespace ember::optim {

namespace {

// The norm's reduction over every gradient element: max |g| for the infinity norm, else sum
// |g|^p, in f32 whatever the gradients' dtypes, so gradients of mixed precision add up. The
// gradients are flattened and joined so the reduction is one kernel over all of them (the join
// is read in place inside it), not one per parameter.
Tensor<1> reduced_norm(const std::vector<RawTensor>& grads, double p) {
  std::vector<RawTensor> flat;
  flat.reserve(grads.size());
  for (const RawTensor& g : grads) flat.push_back(ops::cast(ops::reshape(g, {-1}), DType::F32));
  Tensor<1> all(flat.size() == 1 ? flat[0] : ops::cat(flat, 0), "clip_grad_norm");
  if (std::isinf(p)) return all.abs().max();
  if (p == 2) return (all * all).sum();
  return all.abs().powf_scalar(p).sum();
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
  std::vector<RawTensor> all;
  for (ParamId id : ids) all.push_back(*grads.get_raw(id));
  Tensor<1> acc = reduced_norm(all, norm_type);
  Tensor<1> total = inf ? acc : norm_type == 2 ? acc.sqrt() : acc.powf_scalar(1 / norm_type);
  Tensor<1> coef = (max_norm / (total + kClipNormEpsilon)).clamp_max(1.0);
  for (ParamId id : ids) {
    RawTensor g = *grads.get_raw(id);
    RawTensor c = ops::cast(ops::unsqueeze(coef.raw(), g.rank()), g.dtype());
    grads.register_raw(id, ops::binary(ir::BinaryFn::Mul, g, c));
  }
  return total;
}

}  // namespace ember::optim
