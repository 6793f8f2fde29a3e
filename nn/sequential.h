#pragma once
// Sequential: modules applied in order, each forward's output the next one's input; field paths
// are the indices ("0.weight", "2.bias"). The types are fixed at compile time, so a layer may
// change the rank or kind of what it passes on.
#include <string>
#include <tuple>
#include <utility>

#include "nn/module.h"

namespace ember::nn {

template <class... Ms>
struct Sequential {
  std::tuple<Ms...> layers;

  Sequential() = default;
  explicit Sequential(Ms... ms) : layers(std::move(ms)...) {}

  template <class X>
  auto forward(const X& x) const {
    return apply<0>(x);
  }

  static constexpr const char* module_name() { return "Sequential"; }
  template <class Self, class F>
  static void for_each_field(Self& self, F&& f) {
    for_each_layer(self, f, std::index_sequence_for<Ms...>());
  }
  EMBER_MODULE_METHODS(Sequential)

 private:
  template <size_t I, class X>
  auto apply(const X& x) const {
    if constexpr (I == sizeof...(Ms)) {
      return x;
    } else {
      return apply<I + 1>(std::get<I>(layers).forward(x));
    }
  }
  template <class Self, class F, size_t... I>
  static void for_each_layer(Self& self, F& f, std::index_sequence<I...>) {
    (f(std::to_string(I), std::get<I>(self.layers)), ...);
  }
};

}  // namespace ember::nn
