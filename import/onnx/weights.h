#pragma once
// An imported model's float initializers as nn Params, named by their ONNX names: an nn module
// (visit, map, to_device, records) whose fields are only known at run time. A Param has a
// static rank, so an initializer lives in the Param of its rank (a rank-0 one as shape [1]).
#include <string>
#include <variant>
#include <vector>

#include "nn/module.h"

namespace ember::onnx_import {

using AnyParam = std::variant<nn::Param<Tensor<1>>, nn::Param<Tensor<2>>, nn::Param<Tensor<3>>,
                              nn::Param<Tensor<4>>, nn::Param<Tensor<5>>, nn::Param<Tensor<6>>>;
inline constexpr int kMaxParamRank = 6;

struct Weights {
  struct Entry {
    std::string name;  // the initializer's ONNX name (the record path)
    AnyParam param;
    int onnx_rank;  // 0 for a scalar held as shape [1]
  };
  std::vector<Entry> entries;

  // A trainable (or frozen) parameter holding `data` (float dtypes, rank <= 6).
  static AnyParam make_param(const TensorData& data, const Device& device, bool trainable);
  // The parameter's current value as a rank-erased tensor (tracked when trainable).
  static RawTensor value(const AnyParam& p);

  static constexpr const char* module_name() { return "OnnxWeights"; }
  template <class Self, class F>
  static void for_each_field(Self& self, F&& f) {
    // Names as C strings: record walkers take a field name as const char*.
    for (auto& e : self.entries) std::visit([&](auto& p) { f(e.name.c_str(), p); }, e.param);
  }
  EMBER_MODULE_METHODS(Weights)
};

}  // namespace ember::onnx_import
