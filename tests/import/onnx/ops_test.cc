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

// Pivoting (a zero leading entry), a singular matrix and a batch.
TEST(OnnxOps, DetPivotsAndHandlesSingularMatrices) {
  ::onnx::ModelProto m = unary_model("Det", 2);
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type();
  shape->mutable_shape()->mutable_dim(0)->set_dim_value(3);
  shape->mutable_shape()->add_dim()->set_dim_value(3);
  shape->mutable_shape()->add_dim()->set_dim_value(3);
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(3);
  ImportOptions options;
  options.device = Device::cpu();
  Model model = Model::from_proto(m, "det", options);
  std::vector<double> x = {0, 2, 1, 1, 1, 1, 2, 1, 0,   // det 3, needs a row swap
                           1, 2, 3, 2, 4, 6, 0, 1, 5,   // singular (row 2 = 2 row 1)
                           2, 0, 0, 0, 3, 0, 0, 0, 4};  // diagonal: 24
  std::vector<double> d = model.run({TensorData(x, Shape{3, 3, 3})})[0].to_vec<double>();
  EXPECT_NEAR(d[0], 3, 1e-12);
  EXPECT_NEAR(d[1], 0, 1e-12);
  EXPECT_NEAR(d[2], 24, 1e-12);
}

// An RNN cell h = relu(x + 0.5 h) over sequences of lengths 2 and 3: steps past a sequence's
// length output zeros and keep its state; a reverse pass starts at the sequence's last step.
TEST(OnnxOps, RnnHonoursSequenceLengths) {
  for (std::string direction : {"forward", "reverse"}) {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("rnn");
    auto add_input = [&](const char* name, int32_t type, std::vector<int64_t> dims) {
      auto* io = g->add_input();
      io->set_name(name);
      auto* tt = io->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(type);
      for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
    };
    add_input("x", ::onnx::TensorProto::FLOAT, {3, 2, 1});
    add_input("lens", ::onnx::TensorProto::INT32, {2});
    auto weight = [&](const char* name, float v) {
      auto* t = g->add_initializer();
      t->set_name(name);
      t->set_data_type(::onnx::TensorProto::FLOAT);
      for (int i = 0; i < 3; ++i) t->add_dims(1);
      t->add_float_data(v);
    };
    weight("W", 1.0f);
    weight("R", 0.5f);
    for (const char* out : {"y", "y_h"}) g->add_output()->set_name(out);
    auto* n = g->add_node();
    n->set_op_type("RNN");
    for (const char* in : {"x", "W", "R", "", "lens"}) n->add_input(in);
    n->add_output("y");
    n->add_output("y_h");
    auto* a = n->add_attribute();
    a->set_name("activations");
    a->set_type(::onnx::AttributeProto::STRINGS);
    a->add_strings("Relu");
    auto* h = n->add_attribute();
    h->set_name("hidden_size");
    h->set_type(::onnx::AttributeProto::INT);
    h->set_i(1);
    auto* d = n->add_attribute();
    d->set_name("direction");
    d->set_type(::onnx::AttributeProto::STRING);
    d->set_s(direction);
    ImportOptions options;
    options.device = Device::cpu();
    options.read.infer_shapes = false;
    Model model = Model::from_proto(m, "rnn", options);
    std::vector<TensorData> out =
        model.run({TensorData(std::vector<float>{1, 1, 2, 2, 4, 4}, Shape{3, 2, 1}),
                   TensorData(std::vector<int32_t>{2, 3})});
    // y [seq, directions, batch, hidden], y_h [directions, batch, hidden]
    std::vector<float> y = out[0].to_vec<float>(), yh = out[1].to_vec<float>();
    if (direction == "forward") {
      EXPECT_EQ(y, (std::vector<float>{1, 1, 2.5, 2.5, 0, 5.25}));
      EXPECT_EQ(yh, (std::vector<float>{2.5, 5.25}));
    } else {
      EXPECT_EQ(y, (std::vector<float>{2, 3, 2, 4, 0, 4}));
      EXPECT_EQ(yh, (std::vector<float>{2, 3}));
    }
  }
}

}  // namespace
}  // namespace ember::onnx_import
