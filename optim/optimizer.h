#pragma once
// Optimizer<Rule>: steps every parameter of a module with a per-tensor update rule (Burn's
// OptimizerAdaptor over a SimpleOptimizer), Burn style:
//
//   model = optimizer.step(lr, model, GradientsParams::from_grads(loss.backward(), model));
//
// A Rule names itself (kName), has a State of RawTensors with to_device, and
//   template <int D> std::pair<Tensor<D>, State> step(double lr, const Tensor<D>& w,
//                                                     const Tensor<D>& g,
//                                                     std::optional<State> state) const;
// State is kept per ParamId on the parameter's device. The update is recorded under NoGradGuard
// as lazy ops, so the whole step fuses with the rest of the training step. Tensors are
// immutable, so copying an optimizer snapshots its state (a copy resumes the same trajectory).
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "nn/module_ops.h"
#include "optim/grad_clipping.h"
#include "optim/gradients_params.h"

namespace ember::optim {

namespace detail {
// Throws ember::Error naming `optimizer` for a negative or non-finite learning rate, or for
// gradients of parameters the module does not have.
void check_step(const char* optimizer, double lr, const GradientsParams& grads,
                const std::unordered_set<ParamId>& module_ids);
}  // namespace detail

template <class Rule>
class Optimizer {
 public:
  using State = typename Rule::State;

  explicit Optimizer(Rule rule, std::optional<GradientClippingConfig> clipping = std::nullopt)
      : rule_(std::move(rule)) {
    if (clipping) clipping_.emplace(*clipping);
  }

  // The module with every trainable parameter that has a gradient in `grads` updated; frozen
  // parameters and those without a gradient are returned as they are.
  template <nn::Module M>
  M step(double lr, const M& module, GradientsParams grads) {
    detail::check_step(Rule::kName, lr, grads, param_ids(module));
    NoGradGuard no_grad;
    return nn::map_params(
        module, [&](const std::string&, const auto& p) { return step_param(lr, p, grads); });
  }

  const Rule& rule() const { return rule_; }
  // Parameters with state (those stepped at least once).
  size_t num_states() const { return states_.size(); }
  const std::unordered_map<ParamId, State>& states() const { return states_; }
  // Replaces the state with one saved from states() (of this optimizer or one of the same rule):
  // the steps that follow continue the saved trajectory.
  void load_states(std::unordered_map<ParamId, State> states) { states_ = std::move(states); }
  // Moves every state tensor to `device` (states also follow their parameter at the next step).
  void to_device(const Device& device) {
    for (auto& [id, s] : states_) s = s.to_device(device);
  }

 private:
  template <nn::Module M>
  static std::unordered_set<ParamId> param_ids(const M& module) {
    std::unordered_set<ParamId> ids;
    nn::visit_params(module, [&](const std::string&, const auto& p) { ids.insert(p.id()); });
    return ids;
  }

  template <class P>
  P step_param(double lr, const P& p, GradientsParams& grads) {
    using T = std::decay_t<decltype(p.val())>;
    if constexpr (!std::same_as<typename T::Kind, Float>) {
      return p;
    } else {
      if (!p.is_require_grad()) return p;
      std::optional<T> g = grads.template remove<T::kRank>(p.id());
      if (!g) return p;
      if (clipping_) g = clipping_->clip(*g);
      std::optional<State> state;
      if (auto it = states_.find(p.id()); it != states_.end()) {
        state = it->second.to_device(p.device());
      }
      auto [w, next] = rule_.step(lr, p.val().detach(), *g, std::move(state));
      states_.insert_or_assign(p.id(), std::move(next));
      return p.with_value(w);
    }
  }

  Rule rule_;
  std::optional<GradientClipping> clipping_;
  std::unordered_map<ParamId, State> states_;
};

}  // namespace ember::optim
