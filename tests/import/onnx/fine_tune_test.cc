// An imported model fine-tunes like a hand-written one: the transformer fixture's parameters,
// stepped by optim's Adam through Model::weights(), fit a fixed target.
#include <gtest/gtest.h>

#include "frontend/tensor.h"
#include "import/onnx/model.h"
#include "optim/adam.h"
#include "optim/gradients_params.h"

namespace ember::onnx_import {
namespace {

double mse(const RawTensor& y, const RawTensor& target) {
  RawTensor d = ops::binary(ir::BinaryFn::Sub, y, target);
  return ops::mean(ops::binary(ir::BinaryFn::Mul, d, d)).to_data().value_at(0);
}

TEST(OnnxFineTune, AdamFitsTheTransformerToATarget) {
  ImportOptions options;
  options.device = Device::cpu();
  Model m = Model::load(std::string(EMBER_ONNX_FIXTURES) + "/transformer.onnx", options);
  std::vector<int64_t> tokens;
  for (int i = 0; i < 2 * 7; ++i) tokens.push_back((i * 7) % 50);
  RawTensor x = detail::raw_from_data(TensorData(tokens, Shape{2, 7}), options.device);
  RawTensor target = ops::full(Shape{2, 7, 5}, Scalar(0.5), DType::F32, options.device);
  double first = mse(m.forward({x})[0], target);
  auto adam = optim::AdamConfig().init();
  for (int step = 0; step < 30; ++step) {
    RawTensor y = m.forward({x})[0];
    RawTensor d = ops::binary(ir::BinaryFn::Sub, y, target);
    Gradients g = backward(ops::mean(ops::binary(ir::BinaryFn::Mul, d, d)));
    m = m.with_weights(
        adam.step(1e-2, m.weights(), optim::GradientsParams::from_grads(g, m.weights())));
  }
  double last = mse(m.forward({x})[0], target);
  EXPECT_LT(last, 0.1 * first) << "loss " << first << " -> " << last;
}

}  // namespace
}  // namespace ember::onnx_import
