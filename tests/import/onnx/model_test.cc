// The importer on small graphs built here: outputs, parameters and their gradients, symbolic
// dims, constant folding, external data, and the errors of unreadable or unsupported files.
#include "import/onnx/model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "import/onnx/tensor_proto.h"
#include "nn/record.h"

namespace ember::onnx_import {
namespace {

namespace fs = std::filesystem;

::onnx::TensorProto float_tensor(const std::string& name, std::vector<int64_t> dims,
                                 std::vector<float> values) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (auto v : values) t.add_float_data(v);
  return t;
}

void add_io(::onnx::ValueInfoProto* v, const std::string& name, std::vector<std::string> dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(::onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (std::isdigit(d[0])) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

::onnx::NodeProto* add_node(::onnx::GraphProto* g, const std::string& op, const std::string& name,
                            std::vector<std::string> in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

// y = relu(x @ W^T + b) reshaped by a shape computed from x itself: x [batch, 3], W [2, 3].
::onnx::ModelProto small_model() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("small");
  add_io(g->add_input(), "x", {"batch", "3"});
  add_io(g->add_output(), "y", {"batch", "2"});
  *g->add_initializer() = float_tensor("fc.weight", {2, 3}, {1, 0, -1, 0.5, 0.5, 0.5});
  *g->add_initializer() = float_tensor("fc.bias", {2}, {0.25, -10});
  auto* gemm = add_node(g, "Gemm", "fc", {"x", "fc.weight", "fc.bias"}, {"h"});
  auto* tb = gemm->add_attribute();
  tb->set_name("transB");
  tb->set_type(::onnx::AttributeProto::INT);
  tb->set_i(1);
  add_node(g, "Relu", "act", {"h"}, {"r"});
  add_node(g, "Shape", "shape", {"r"}, {"s"});
  add_node(g, "Reshape", "keep", {"r", "s"}, {"y"});
  return m;
}

ImportOptions cpu() {
  ImportOptions o;
  o.device = Device::cpu();
  return o;
}

TEST(OnnxModel, RunsWithASymbolicBatch) {
  Model m = Model::from_proto(small_model(), "small", cpu());
  ASSERT_EQ(m.inputs().size(), 1u);
  EXPECT_EQ(m.inputs()[0].to_string(), "x: FLOAT[batch, 3]");
  EXPECT_EQ(m.num_params(), 8);
  for (int64_t batch : {1, 3}) {
    std::vector<float> x;
    for (int64_t i = 0; i < batch * 3; ++i) x.push_back(static_cast<float>(i));
    TensorData y = m.run({TensorData(x, Shape{batch, 3})})[0];
    ASSERT_EQ(y.shape(), (Shape{batch, 2}));
    auto v = y.to_vec<float>();
    for (int64_t b = 0; b < batch; ++b) {
      float x0 = x[b * 3], x1 = x[b * 3 + 1], x2 = x[b * 3 + 2];
      EXPECT_FLOAT_EQ(v[b * 2], std::max(0.0f, x0 - x2 + 0.25f));
      EXPECT_FLOAT_EQ(v[b * 2 + 1], std::max(0.0f, 0.5f * (x0 + x1 + x2) - 10));
    }
  }
}

TEST(OnnxModel, InitializersAreTrainableParams) {
  Model m = Model::from_proto(small_model(), "small", cpu());
  std::vector<std::string> names;
  m.weights().visit([&](const std::string& path, const auto&) { names.push_back(path); });
  EXPECT_EQ(names, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  RawTensor x =
      Tensor<2>::from_data(TensorData(std::vector<float>{1, 2, 3}, Shape{1, 3}), Device::cpu())
          .raw();
  RawTensor y = m.forward({x})[0];
  Gradients grads = backward(y);
  // d y0 / d W[0] = x where the unit is active (x0 - x2 + 0.25 < 0: inactive); unit 1 inactive.
  auto gw = grads.get(Weights::value(m.weights().entries[0].param));
  ASSERT_TRUE(gw.has_value());
  EXPECT_EQ(gw->to_data().to_vec<float>(), (std::vector<float>{0, 0, 0, 0, 0, 0}));
  RawTensor x2 =
      Tensor<2>::from_data(TensorData(std::vector<float>{3, 2, 1}, Shape{1, 3}), Device::cpu())
          .raw();
  Gradients g2 = backward(m.forward({x2})[0]);
  auto gw2 = g2.get(Weights::value(m.weights().entries[0].param));
  ASSERT_TRUE(gw2.has_value());
  EXPECT_EQ(gw2->to_data().to_vec<float>(), (std::vector<float>{3, 2, 1, 0, 0, 0}));
}

// Records name the parameters by their ONNX names; a record saved from changed weights and
// loaded into a fresh import reproduces the changed model.
TEST(OnnxModel, WeightsRoundTripThroughRecords) {
  Model m = Model::from_proto(small_model(), "small", cpu());
  record::Record r = nn::to_record(m.weights());
  ASSERT_NE(r.find("fc.weight"), nullptr);
  ASSERT_NE(r.find("fc.bias"), nullptr);
  Weights doubled = m.weights().map([](const std::string&, const auto& p) {
    return p.map([](const auto& t) { return t * 2.0; });
  });
  std::string path = (fs::temp_directory_path() / "ember_onnx_weights.ember").string();
  nn::save(doubled, path);
  Model fresh = Model::from_proto(small_model(), "small", cpu());
  Model loaded = fresh.with_weights(nn::load(fresh.weights(), path));
  TensorData x(std::vector<float>{3, 2, 1}, Shape{1, 3});
  // relu(2 (W x + b)) = 2 relu(W x + b)
  EXPECT_FLOAT_EQ(loaded.run({x})[0].to_vec<float>()[0], 2 * m.run({x})[0].to_vec<float>()[0]);
  fs::remove(path);
}

TEST(OnnxModel, SymbolicDimsMustAgreeAndFixedDimsMatch) {
  Model m = Model::from_proto(small_model(), "small", cpu());
  EXPECT_THROW(m.run({TensorData(std::vector<float>(8), Shape{2, 4})}), Error);
  EXPECT_THROW(m.run({}), Error);
}

TEST(OnnxModel, ShapeComputationsFoldAtImport) {
  ::onnx::ModelProto p = small_model();
  auto* g = p.mutable_graph();
  // A shape from constants only: Constant -> Concat folds away.
  auto* c = add_node(g, "Constant", "c", {}, {"k"});
  auto* a = c->add_attribute();
  a->set_name("value_ints");
  a->set_type(::onnx::AttributeProto::INTS);
  a->add_ints(-1);
  add_node(g, "Concat", "cat", {"k", "k"}, {"kk"})->add_attribute()->CopyFrom([] {
    ::onnx::AttributeProto ax;
    ax.set_name("axis");
    ax.set_type(::onnx::AttributeProto::INT);
    ax.set_i(0);
    return ax;
  }());
  Model m = Model::from_proto(p, "folded", cpu());
  EXPECT_EQ(m.folded_nodes(), 2);
  EXPECT_EQ(m.op_counts().count("Concat"), 0u);
}

// With a fixed batch, shape inference makes every shape static: the Shape node and what depends
// only on it fold at import.
TEST(OnnxModel, ShapesOfStaticValuesFoldAtImport) {
  ::onnx::ModelProto p = small_model();
  auto* dim = p.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(0);
  dim->set_dim_value(2);
  ::onnx::ModelProto read = read_model_bytes(p.SerializeAsString(), ".", "static.onnx");
  Model m = Model::from_proto(read, "static.onnx", cpu());
  EXPECT_EQ(m.op_counts().count("Shape"), 0u);
  EXPECT_EQ(m.folded_nodes(), 1);
  TensorData y = m.run({TensorData(std::vector<float>{3, 2, 1, 0, 0, 0}, Shape{2, 3})})[0];
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_FLOAT_EQ(y.to_vec<float>()[0], 2.25f);
}

TEST(OnnxModel, ReportsEveryUnsupportedConstructAtOnce) {
  ::onnx::ModelProto p = small_model();
  auto* g = p.mutable_graph();
  add_node(g, "NoSuchOp", "first_bad", {"y"}, {"z1"});
  auto* relu = add_node(g, "Relu", "second_bad", {"y"}, {"z2"});
  auto* attr = relu->add_attribute();
  attr->set_name("bogus");
  attr->set_type(::onnx::AttributeProto::INT);
  try {
    Model::from_proto(p, "bad.onnx", cpu());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("bad.onnx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2 unsupported constructs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node 'first_bad' (NoSuchOp, opset 17): op type not supported"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("node 'second_bad' (Relu, opset 17): attribute 'bogus' not supported"),
              std::string::npos)
        << msg;
  }
}

// An error of a frontend op while a node runs names the node.
TEST(OnnxModel, RunTimeErrorsNameTheNode) {
  ::onnx::ModelProto p = small_model();
  auto* g = p.mutable_graph();
  *g->add_initializer() = float_tensor("w2", {4, 2}, std::vector<float>(8, 1));
  add_node(g, "MatMul", "bad_matmul", {"y", "w2"}, {"z"});
  Model m = Model::from_proto(p, "small", cpu());
  try {
    m.run({TensorData(std::vector<float>{1, 2, 3}, Shape{1, 3})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("node 'bad_matmul' (MatMul, opset 17)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("matmul"), std::string::npos) << msg;
  }
}

// An older opset is converted to 17 by ONNX's converter, which drops non-tensor types: the
// reader puts them back.
TEST(OnnxReader, OpsetConversionKeepsSequenceTypes) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(16);
  auto* g = m.mutable_graph();
  g->set_name("seq");
  for (auto* io : {g->add_input(), g->add_output()}) {
    io->set_name(io == &g->input(0) ? "x" : "y");
    io->mutable_type()
        ->mutable_sequence_type()
        ->mutable_elem_type()
        ->mutable_tensor_type()
        ->set_elem_type(::onnx::TensorProto::FLOAT);
  }
  add_node(g, "Identity", "id", {"x"}, {"y"});
  ::onnx::ModelProto read = read_model_bytes(m.SerializeAsString(), ".", "seq.onnx");
  EXPECT_EQ(default_opset(read), 17);
  EXPECT_TRUE(read.graph().input(0).type().has_sequence_type());
  EXPECT_TRUE(read.graph().output(0).type().has_sequence_type());
}

TEST(OnnxReader, NamesAnUnreadableFile) {
  fs::path dir = fs::temp_directory_path() / "ember_onnx_reader_test";
  fs::create_directories(dir);
  std::ofstream(dir / "junk.onnx") << "not a protobuf at all \xff\xff\xff";
  for (const auto& path : {(dir / "missing.onnx").string(), (dir / "junk.onnx").string()}) {
    try {
      read_model(path);
      FAIL() << "expected an error for " << path;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxReader, LoadsExternalDataRelativeToTheModel) {
  fs::path dir = fs::temp_directory_path() / "ember_onnx_external_test";
  fs::create_directories(dir);
  ::onnx::ModelProto p = small_model();
  auto* w = p.mutable_graph()->mutable_initializer(0);
  std::vector<float> values(w->float_data().begin(), w->float_data().end());
  w->clear_float_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  auto* off = w->add_external_data();
  off->set_key("offset");
  off->set_value("4");
  {
    std::ofstream bin(dir / "weights.bin", std::ios::binary);
    float pad = 0;
    bin.write(reinterpret_cast<const char*>(&pad), 4);
    bin.write(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  }
  {
    std::ofstream out(dir / "model.onnx", std::ios::binary);
    p.SerializeToOstream(&out);
  }
  Model m = Model::load((dir / "model.onnx").string(), cpu());
  TensorData y = m.run({TensorData(std::vector<float>{3, 2, 1}, Shape{1, 3})})[0];
  EXPECT_FLOAT_EQ(y.to_vec<float>()[0], 2.25f);
  fs::remove(dir / "weights.bin");
  EXPECT_THROW(Model::load((dir / "model.onnx").string(), cpu()), Error);
}

}  // namespace
}  // namespace ember::onnx_import
