#pragma once
// Defining a module: a struct with its fields and one declaration naming them,
//
//   struct Mlp {
//     nn::Linear fc1, fc2;
//     nn::Relu act;
//     std::optional<nn::Dropout> dropout;
//     Tensor<2> forward(const Tensor<2>& x) const;
//     EMBER_MODULE(Mlp, fc1, act, fc2, dropout)
//   };
//
// from which the module gets visiting and mapping of its parameters by path ("fc1.weight"),
// num_params, devices, to_device, fork, no_grad, valid and display, as members and as the free
// functions of module_ops.h. EMBER_MODULE leaves what follows it public.
#include <ostream>
#include <string>
#include <vector>

#include "nn/display.h"
#include "nn/for_each.h"
#include "nn/module_ops.h"
#include "nn/walk.h"

#define EMBER_NN_FIELD(name) f(#name, self.name);

// The member functions every module has, for a type that already defines module_name() and
// for_each_field() (Sequential does it by hand).
#define EMBER_MODULE_METHODS(Type)                                                            \
  int64_t num_params() const { return ::ember::nn::num_params(*this); }                       \
  std::vector<::ember::Device> devices() const { return ::ember::nn::devices(*this); }        \
  Type to_device(const ::ember::Device& device) const {                                       \
    return ::ember::nn::to_device(*this, device);                                             \
  }                                                                                           \
  Type fork(const ::ember::Device& device) const { return ::ember::nn::fork(*this, device); } \
  Type no_grad() const { return ::ember::nn::no_grad(*this); }                                \
  Type valid() const { return ::ember::nn::valid(*this); }                                    \
  template <class EmberF>                                                                     \
  void visit(EmberF&& f) const {                                                              \
    ::ember::nn::visit(*this, f);                                                             \
  }                                                                                           \
  template <class EmberF>                                                                     \
  Type map(EmberF&& f) const {                                                                \
    return ::ember::nn::map(*this, f);                                                        \
  }                                                                                           \
  std::string to_string() const { return ::ember::nn::to_string(*this); }                     \
  friend std::ostream& operator<<(std::ostream& os, const Type& m) { return os << m.to_string(); }

#define EMBER_MODULE(Type, ...)                                  \
 public:                                                         \
  static constexpr const char* module_name() { return #Type; }   \
  template <class Self, class F>                                 \
  static void for_each_field(Self& self, F&& f) {                \
    (void)self;                                                  \
    (void)f;                                                     \
    EMBER_NN_FOR_EACH(EMBER_NN_FIELD __VA_OPT__(, ) __VA_ARGS__) \
  }                                                              \
  EMBER_MODULE_METHODS(Type)
