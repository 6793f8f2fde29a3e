#pragma once
// GradientsParams: a backward pass's gradients keyed by ParamId (Burn's GradientsParams). The
// tape's Gradients are keyed by leaf node ids, which change every step; an optimizer needs the
// stable ids of the module's parameters, and taking the gradients of one sub-module gives that
// part of a model its own optimizer or learning rate.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/tensor.h"
#include "nn/module_ops.h"

namespace ember::optim {

using nn::ParamId;

class GradientsParams {
 public:
  GradientsParams() = default;

  // The gradient of every trainable float parameter of `module` that `grads` holds one for.
  template <nn::Module M>
  static GradientsParams from_grads(const Gradients& grads, const M& module) {
    GradientsParams out;
    nn::visit_params(module, [&](const std::string&, const auto& p) {
      using T = std::decay_t<decltype(p.val())>;
      if constexpr (std::same_as<typename T::Kind, Float>) {
        if (!p.is_require_grad()) return;
        if (auto g = p.grad(grads)) out.register_grad(p.id(), *g);
      }
    });
    return out;
  }

  // The gradient of `id` (ember::Error when it has another rank than D).
  template <int D>
  std::optional<Tensor<D>> get(ParamId id) const {
    auto raw = get_raw(id);
    if (!raw) return std::nullopt;
    return Tensor<D>(*raw, "GradientsParams::get");
  }
  // The same, removed from the set.
  template <int D>
  std::optional<Tensor<D>> remove(ParamId id) {
    auto raw = remove_raw(id);
    if (!raw) return std::nullopt;
    return Tensor<D>(*raw, "GradientsParams::remove");
  }
  // Sets the gradient of `id`, replacing any it had (Burn's register).
  template <int D>
  void register_grad(ParamId id, const Tensor<D>& grad) {
    register_raw(id, grad.raw());
  }

  // Rank-erased access (clipping over all parameters, accumulation).
  std::optional<RawTensor> get_raw(ParamId id) const;
  std::optional<RawTensor> remove_raw(ParamId id);
  void register_raw(ParamId id, const RawTensor& grad);

  bool contains(ParamId id) const { return grads_.count(id) != 0; }
  size_t size() const { return grads_.size(); }
  bool empty() const { return grads_.empty(); }
  // The ids held, in increasing order (a deterministic order for reductions and messages).
  std::vector<ParamId> ids() const;

 private:
  std::unordered_map<ParamId, RawTensor> grads_;
};

}  // namespace ember::optim
