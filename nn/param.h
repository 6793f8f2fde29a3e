#pragma once
// Param<T>: a module's trainable (or frozen) tensor with a stable ParamId, initialised lazily.
// A Param is a handle: copies share one state, so a lazily initialised value is drawn once and
// seen by every copy. Operations that change the value (map, to_device, load) return a new
// Param with the same id.
#include <concepts>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "frontend/tensor.h"
#include "nn/param_id.h"

namespace ember::nn {

template <class T>
class Param {
 public:
  // Makes the tensor on a device when the parameter is first used.
  using Init = std::function<T(const Device&)>;

  Param() = default;
  // An initialised parameter with a new id.
  explicit Param(T value, bool require_grad = true)
      : Param(ParamId(), std::move(value), require_grad) {}
  Param(ParamId id, T value, bool require_grad = true)
      // (value is copied, not moved: the arguments' order of evaluation is unspecified)
      : Param(id, value.shape(), value.device(), require_grad, Cell::ready(value)) {}
  // A parameter whose tensor `init` makes on first use (never, when a value is loaded first).
  static Param lazy(ParamId id, Shape shape, Device device, bool require_grad, Init init) {
    return Param(id, std::move(shape), device, require_grad, Cell::later(device, std::move(init)));
  }

  bool defined() const { return s_ != nullptr; }
  ParamId id() const { return state().id; }
  // The tensor, made now if the parameter is still lazy. A trainable parameter's tensor is a
  // tracked leaf (the same leaf on every call, so backward() reports its gradient).
  const T& val() const {
    const State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.value) s.value = track(s.cell->get(), s.require_grad);
    return *s.value;
  }
  bool is_initialized() const { return state().cell->ready_now(); }
  // Known without initialising.
  const Shape& shape() const { return state().shape; }
  const Device& device() const { return state().device; }
  int64_t num_elements() const { return shape().numel(); }
  bool is_require_grad() const { return state().require_grad; }
  // This leaf's gradient in `grads` (none when the loss does not depend on it or it is frozen).
  std::optional<T> grad(
      const Gradients& grads) const requires std::same_as<typename T::Kind, Float> {
    return val().grad(grads);
  }

  // The same id and value, trainable or frozen. A lazy parameter stays lazy and shares its one
  // initialisation with this one.
  Param set_require_grad(bool on) const {
    const State& s = state();
    return Param(s.id, s.shape, s.device, on, s.cell);
  }
  // The same id holding `value` (an optimizer step, a loaded record): nothing is initialised.
  Param with_value(T value) const {
    if (value.shape() != shape()) {
      throw Error("Param " + id().to_string() + ": new value " + value.shape().to_string() +
                  " does not match the parameter's shape " + shape().to_string());
    }
    return Param(id(), std::move(value), is_require_grad());
  }
  // The same id holding f(val()).
  template <class F>
  Param map(F&& f) const {
    return Param(id(), std::forward<F>(f)(val()), is_require_grad());
  }
  // On `device`, cut from any tape (a tracked tensor cannot cross devices), trainable as before.
  // A lazy parameter stays lazy: its first use draws this one's value (once, for both) and
  // moves it, so the copy always holds the same values as the original.
  Param to_device(const Device& device) const {
    const State& s = state();
    if (!is_initialized()) {
      std::shared_ptr<const Cell> source = s.cell;
      return lazy(s.id, s.shape, device, s.require_grad,
                  [source](const Device& d) { return source->get().to_device(d); });
    }
    return Param(s.id, val().detach().to_device(device), s.require_grad);
  }
  Param fork(const Device& device) const { return to_device(device); }

 private:
  // The untracked value, made at most once; shared by the Params that differ only in whether
  // they are trainable.
  struct Cell {
    Device device;
    Init init;
    mutable std::mutex mutex;
    mutable std::optional<T> value;
    static std::shared_ptr<Cell> ready(const T& v) {
      auto c = std::make_shared<Cell>();
      c->device = v.device();
      c->value = v.detach();
      return c;
    }
    static std::shared_ptr<Cell> later(Device d, Init init) {
      auto c = std::make_shared<Cell>();
      c->device = d;
      c->init = std::move(init);
      return c;
    }
    const T& get() const {
      std::lock_guard<std::mutex> lock(mutex);
      if (!value) value = init(device).detach();
      return *value;
    }
    bool ready_now() const {
      std::lock_guard<std::mutex> lock(mutex);
      return value.has_value();
    }
  };
  struct State {
    ParamId id;
    Shape shape;
    Device device;
    bool require_grad;
    std::shared_ptr<const Cell> cell;
    mutable std::mutex mutex;
    mutable std::optional<T> value;  // the cell's value, tracked when trainable
  };

  Param(ParamId id, Shape shape, Device device, bool require_grad, std::shared_ptr<const Cell> cell)
      : s_(std::make_shared<State>(id, std::move(shape), device, require_grad, std::move(cell))) {}

  static T track(const T& value, bool require_grad) {
    if constexpr (std::same_as<typename T::Kind, Float>) {
      return require_grad ? value.detach().require_grad() : value.detach();
    } else {
      return value;
    }
  }
  const State& state() const {
    if (!s_) throw Error("Param: used before it was given a value (default-constructed)");
    return *s_;
  }

  std::shared_ptr<const State> s_;
};

// State a module keeps but does not train (batch norm's running statistics; Burn's RunningState):
// visited with its id so records save it, updated by the module's forward pass. Copies of a module
// share it, as they share parameters; mapping a module (to_device, valid) gives the copy its own.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(T value) : Buffer(ParamId(), std::move(value)) {}
  Buffer(ParamId id, T value) : s_(std::make_shared<State>(id, value.detach())) {}

  bool defined() const { return s_ != nullptr; }
  ParamId id() const { return state().id; }
  T value() const {
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().value;
  }
  // Replaces the value seen by every copy sharing this buffer (cut from the tape).
  void update(T value) const {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().value = value.detach();
  }
  Shape shape() const { return value().shape(); }
  Device device() const { return value().device(); }
  int64_t num_elements() const { return shape().numel(); }

  // A new buffer with the same id (not shared with this one).
  Buffer with_value(T value) const { return Buffer(id(), std::move(value)); }
  // A new buffer with the same id holding f(value()).
  template <class F>
  Buffer map(F&& f) const {
    return with_value(std::forward<F>(f)(value()));
  }
  Buffer to_device(const Device& device) const { return with_value(value().to_device(device)); }
  Buffer fork(const Device& device) const { return to_device(device); }

 private:
  struct State {
    State(ParamId i, T v) : id(i), value(std::move(v)) {}
    ParamId id;
    std::mutex mutex;
    T value;
  };
  State& state() const {
    if (!s_) throw Error("Buffer: used before it was given a value (default-constructed)");
    return *s_;
  }
  std::shared_ptr<State> s_;
};

template <class T>
inline constexpr bool is_param_v = false;
template <class T>
inline constexpr bool is_param_v<Param<T>> = true;
template <class T>
inline constexpr bool is_buffer_v = false;
template <class T>
inline constexpr bool is_buffer_v<Buffer<T>> = true;

}  // namespace ember::nn
