#pragma once
// What every module gets from its field declaration (Burn's Module trait): visiting and mapping of
// its parameters and state by path, counting, devices, device moves, freezing and the inference
// copy. Free functions on any module; EMBER_MODULE adds them as members too.
#include <algorithm>
#include <string>
#include <vector>

#include "nn/walk.h"

namespace ember::nn {

// Calls f(path, p) for every Param and Buffer (const references), in declaration order; paths are
// dotted field names, vector elements by index ("layers.0.weight"). Tell them apart with
// is_param_v / is_buffer_v on the decayed type.
template <Module M, class F>
void visit(const M& m, F&& f) {
  detail::walk(m, std::string(), f);
}

// The same, for the Params only (what an optimizer sees).
template <Module M, class F>
void visit_params(const M& m, F&& f) {
  auto only = [&](const std::string& path, const auto& p) {
    if constexpr (is_param_v<std::decay_t<decltype(p)>>) f(path, p);
  };
  detail::walk(m, std::string(), only);
}

// A copy of m whose every Param and Buffer is f(path, p); f returns the entry's own type. The
// module's other fields are copied.
template <Module M, class F>
M map(const M& m, F&& f) {
  M out = m;
  auto replace = [&](const std::string& path, auto& p) { p = f(path, std::as_const(p)); };
  detail::walk(out, std::string(), replace);
  return out;
}

// The same for the Params; Buffers stay shared with m.
template <Module M, class F>
M map_params(const M& m, F&& f) {
  auto only = [&](const std::string& path, const auto& p) {
    if constexpr (is_param_v<std::decay_t<decltype(p)>>) {
      return f(path, p);
    } else {
      return p;
    }
  };
  return map(m, only);
}

// Elements of every Param and Buffer (as Burn, whose count includes running statistics).
template <Module M>
int64_t num_params(const M& m) {
  int64_t n = 0;
  visit(m, [&](const std::string&, const auto& p) { n += p.num_elements(); });
  return n;
}

// The devices the module's tensors are on, each once, in the order first seen.
template <Module M>
std::vector<Device> devices(const M& m) {
  std::vector<Device> out;
  visit(m, [&](const std::string&, const auto& p) {
    if (std::find(out.begin(), out.end(), p.device()) == out.end()) out.push_back(p.device());
  });
  return out;
}

// On `device`, ids kept; lazy parameters stay lazy. Tensors are cut from the tape to move.
template <Module M>
M to_device(const M& m, const Device& device) {
  return map(m, [&](const std::string&, const auto& p) { return p.to_device(device); });
}

// A copy on `device` with its own tensors, detached, trainable as before (Burn's fork).
template <Module M>
M fork(const M& m, const Device& device) {
  return map(m, [&](const std::string&, const auto& p) { return p.fork(device); });
}

// Every parameter frozen: no gradient flows to it, an optimizer leaves it alone.
template <Module M>
M no_grad(const M& m) {
  return map_params(m, [](const std::string&, const auto& p) { return p.set_require_grad(false); });
}

// Sets the training flag of every module that has one (dropout, batch norm).
template <Module M>
void set_training(M& m, bool training) {
  auto flip = [&](auto& module) {
    if constexpr (requires { module.set_training(training); }) module.set_training(training);
  };
  detail::walk_modules(m, flip);
}

// The inference copy (Burn's valid(), PyTorch's eval()): parameters untracked, ids kept, dropout
// off, batch norm on its running statistics (a snapshot: the copy never updates them).
template <Module M>
M valid(const M& m) {
  M out = map(m, [](const std::string&, const auto& p) {
    if constexpr (is_param_v<std::decay_t<decltype(p)>>) {
      return p.set_require_grad(false);
    } else {
      return p.with_value(p.value());
    }
  });
  set_training(out, false);
  return out;
}

}  // namespace ember::nn
