// Converters whose accuracy the node cases check only loosely (rtol 1e-3): the inverse
// trigonometric functions, composed from a series, against the C library in f64.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "import/onnx/model.h"

namespace ember::onnx_import {
namespace {

// A model of one node `op` from a DOUBLE input x of n elements to y.
::onnx::ModelProto unary_model(const std::string& op, int64_t n) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name(op);
  for (auto [io, name] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
    io->set_name(name);
    auto* tt = io->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(::onnx::TensorProto::DOUBLE);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
  }
  auto* node = g->add_node();
  node->set_op_type(op);
  node->add_input("x");
  node->add_output("y");
  return m;
}

void expect_matches(const std::string& op, double (*ref)(double), std::vector<double> xs) {
  ImportOptions options;
  options.device = Device::cpu();
  Model m = Model::from_proto(unary_model(op, static_cast<int64_t>(xs.size())), op, options);
  std::vector<double> y = m.run({TensorData(xs)})[0].to_vec<double>();
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(y[i], ref(xs[i]), 1e-12) << op << "(" << xs[i] << ")";
  }
}

TEST(OnnxOps, InverseTrigonometryIsAccurateInF64) {
  std::vector<double> wide, unit;
  for (int i = -200; i <= 200; ++i) wide.push_back(i * 0.173);
  wide.push_back(1e9);
  wide.push_back(-std::numeric_limits<double>::infinity());
  for (int i = -100; i <= 100; ++i) unit.push_back(i / 100.0);
  expect_matches("Atan", std::atan, wide);
  expect_matches("Asin", std::asin, unit);
  expect_matches("Acos", std::acos, unit);
}

}  // namespace
}  // namespace ember::onnx_import
