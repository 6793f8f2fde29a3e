// The module system: paths from the visitor, parameter counts, ParamIds kept across to_device,
// fork and valid(), lazy initialisation, freezing, mapping, containers and display.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/nn/test_util.h"

namespace ember::nn {
namespace {

using testing::dev;

struct Block {
  Linear fc;
  Relu act;
  std::optional<Dropout> dropout;
  Tensor<2> forward(const Tensor<2>& x) const {
    auto h = act.forward(fc.forward(x));
    return dropout ? dropout->forward(h) : h;
  }
  EMBER_MODULE(Block, fc, act, dropout)
};

struct Net {
  Linear input;
  std::vector<Block> blocks;
  BatchNorm norm;
  Linear head;
  int64_t width = 3;
  EMBER_MODULE(Net, input, blocks, norm, head, width)
};

Net make_net() {
  Net n;
  n.input = LinearConfig(4, 3).init(dev());
  n.blocks.push_back({LinearConfig(3, 3).init(dev()), Relu(), DropoutConfig(0.5).init()});
  n.blocks.push_back({LinearConfig(3, 3).with_bias(false).init(dev()), Relu(), std::nullopt});
  n.norm = BatchNormConfig(3).init(dev());
  n.head = LinearConfig(3, 2).init(dev());
  return n;
}

std::map<std::string, ParamId> ids(const Net& n) {
  std::map<std::string, ParamId> out;
  n.visit([&](const std::string& path, const auto& p) { out.emplace(path, p.id()); });
  return out;
}

TEST(Module, VisitorPathsFollowTheDeclaration) {
  std::vector<std::string> paths, params;
  Net n = make_net();
  n.visit([&](const std::string& path, const auto&) { paths.push_back(path); });
  visit_params(n, [&](const std::string& path, const auto&) { params.push_back(path); });
  EXPECT_EQ(paths, (std::vector<std::string>{"input.weight", "input.bias", "blocks.0.fc.weight",
                                             "blocks.0.fc.bias", "blocks.1.fc.weight", "norm.gamma",
                                             "norm.beta", "norm.running_mean", "norm.running_var",
                                             "head.weight", "head.bias"}));
  // Running statistics are visited (records save them) but are not parameters.
  EXPECT_EQ(params.size(), paths.size() - 2);
}

TEST(Module, NumParamsOfKnownLayers) {
  EXPECT_EQ(LinearConfig(1024, 512).init(dev()).num_params(), 524800);
  EXPECT_EQ(LinearConfig(512, 10).init(dev()).num_params(), 5130);
  EXPECT_EQ(LinearConfig(512, 10).with_bias(false).init(dev()).num_params(), 5120);
  EXPECT_EQ(LayerNormConfig(8).init(dev()).num_params(), 16);
  EXPECT_EQ(GroupNormConfig(2, 6).with_affine(false).init(dev()).num_params(), 0);
  EXPECT_EQ(EmbeddingConfig(100, 16).init(dev()).num_params(), 1600);
  EXPECT_EQ(SwiGluConfig(4, 8).init(dev()).num_params(), 64);
  // As Burn, the count includes the running statistics.
  EXPECT_EQ(BatchNormConfig(3).init(dev()).num_params(), 12);
  // 4*3+3, 3*3+3, 3*3, 4*3, 3*2+2
  EXPECT_EQ(make_net().num_params(), 15 + 12 + 9 + 12 + 8);
  EXPECT_EQ(Relu().num_params(), 0);
}

TEST(Module, IdsStayAcrossToDeviceForkValidAndSteps) {
  Net n = make_net();
  auto before = ids(n);
  EXPECT_EQ(ids(n.to_device(dev())), before);
  EXPECT_EQ(ids(n.fork(dev())), before);
  EXPECT_EQ(ids(n.valid()), before);
  EXPECT_EQ(ids(n.no_grad()), before);
  // An optimizer-like step: every parameter replaced by a new value.
  Net stepped = map_params(n, [](const std::string&, const auto& p) {
    return p.map([](const auto& t) { return t * 0.5; });
  });
  EXPECT_EQ(ids(stepped), before);
  // Ids are distinct within a module and between modules.
  std::set<ParamId> unique;
  for (auto& [path, id] : before) unique.insert(id);
  for (auto& [path, id] : ids(make_net())) unique.insert(id);
  EXPECT_EQ(unique.size(), 2 * before.size());
}

TEST(Module, ValidTurnsOffDropoutAndTracking) {
  Net n = make_net();
  Net v = n.valid();
  EXPECT_TRUE(n.blocks[0].dropout->is_training());
  EXPECT_FALSE(v.blocks[0].dropout->is_training());
  EXPECT_FALSE(v.norm.is_training());
  EXPECT_TRUE(n.input.weight.is_require_grad());
  EXPECT_FALSE(v.input.weight.is_require_grad());
  EXPECT_FALSE(v.input.weight.val().is_require_grad());
  // Same values: valid() shares the parameters' initialisation.
  EXPECT_EQ(testing::host(v.input.weight.val()), testing::host(n.input.weight.val()));
}

TEST(Module, NoGradFreezesEveryParameter) {
  Linear l = LinearConfig(2, 2).init(dev()).no_grad();
  auto x = Tensor<2>::ones(Shape{1, 2}, dev()).require_grad();
  Gradients g = l.forward(x).sum().backward();
  EXPECT_TRUE(x.grad(g).has_value());
  EXPECT_FALSE(l.weight.grad(g).has_value());
  EXPECT_FALSE(l.bias->grad(g).has_value());
}

TEST(Module, TrainableParametersGetGradients) {
  Linear l = LinearConfig(2, 3).init(dev());
  auto x = Tensor<2>::from_floats({{1.0, 2.0}}, dev());
  Gradients g = l.forward(x).sum().backward();
  // d sum(x W + b) / dW[i][j] = x[i]; / db = 1.
  testing::expect_tensor(l.weight.grad(g).value(), Shape{2, 3}, {1, 1, 1, 2, 2, 2});
  testing::expect_tensor(l.bias->grad(g).value(), Shape{3}, {1, 1, 1});
}

TEST(Module, ParametersInitialiseLazilyAndOnce) {
  int draws = 0;
  auto p = Param<Tensor<1>>::lazy(ParamId(), Shape{3}, dev(), true, [&](const Device& d) {
    ++draws;
    return Tensor<1>::random(Shape{3}, Distribution::normal(0, 1), d);
  });
  EXPECT_FALSE(p.is_initialized());
  EXPECT_EQ(p.shape(), (Shape{3}));  // known without drawing
  Param<Tensor<1>> frozen = p.set_require_grad(false);
  Param<Tensor<1>> copy = p;
  EXPECT_EQ(draws, 0);
  auto a = testing::host(copy.val());
  EXPECT_EQ(testing::host(p.val()), a);
  EXPECT_EQ(testing::host(frozen.val()), a);
  EXPECT_EQ(draws, 1);
  EXPECT_TRUE(p.val().is_require_grad());
  EXPECT_FALSE(frozen.val().is_require_grad());
}

TEST(Module, LoadingRightAfterInitDrawsNothing) {
  Linear l = LinearConfig(300, 200).init(dev());
  Linear loaded = map_params(l, [](const std::string&, const auto& p) {
    using T = std::decay_t<decltype(p.val())>;
    return p.with_value(T::ones(p.shape(), dev()));
  });
  EXPECT_EQ(testing::host(loaded.bias->val()), std::vector<double>(200, 1.0));
  EXPECT_FALSE(l.weight.is_initialized());
  EXPECT_FALSE(l.bias->is_initialized());
  EXPECT_EQ(loaded.weight.id(), l.weight.id());
  testing::expect_error([&] { (void)l.bias->with_value(Tensor<1>::ones(Shape{3}, dev())); },
                        {"Param", "[3]", "[200]"});
}

TEST(Module, MapAppliesToEveryParameter) {
  Linear l = LinearConfig(3, 4).with_initializer(Initializer::uniform(-5, 5)).init(dev());
  Linear c = l.map([](const std::string&, const auto& p) {
    return p.map([](const auto& t) { return t.clamp(-0.5, 0.5); });
  });
  for (double v : testing::host(c.weight.val())) {
    EXPECT_LE(std::abs(v), 0.5);
  }
  EXPECT_TRUE(c.weight.val().is_require_grad());
}

TEST(Module, DevicesListsEachDeviceOnce) {
  EXPECT_EQ(make_net().devices(), std::vector<Device>{dev()});
  EXPECT_TRUE(Relu().devices().empty());
}

// (A move between devices when the suite runs on another one: EMBER_NN_TEST_DEVICE.)
TEST(Module, ToDeviceMovesValuesAndKeepsIds) {
  Net n = make_net();
  Net moved = n.to_device(Device::cpu());
  EXPECT_EQ(moved.devices(), std::vector<Device>{Device::cpu()});
  EXPECT_EQ(ids(moved), ids(n));
  EXPECT_EQ(testing::host(moved.head.weight.val()), testing::host(n.head.weight.val()));
  EXPECT_EQ(testing::host(moved.norm.running_var.value()),
            testing::host(n.norm.running_var.value()));
  EXPECT_TRUE(moved.head.weight.val().is_require_grad());
}

TEST(Module, ForkIsDetachedAndKeepsTrainability) {
  Linear l = LinearConfig(2, 2).init(dev());
  Linear f = l.fork(dev());
  EXPECT_TRUE(f.weight.is_require_grad());
  EXPECT_EQ(testing::host(f.weight.val()), testing::host(l.weight.val()));
  auto x = Tensor<2>::ones(Shape{1, 2}, dev());
  Gradients g = f.forward(x).sum().backward();
  EXPECT_TRUE(f.weight.grad(g).has_value());
  EXPECT_FALSE(l.weight.grad(g).has_value());  // a different leaf
}

TEST(Module, SequentialAppliesInOrderWithIndexPaths) {
  auto seq = Sequential(LinearConfig(2, 3).init(dev()), Relu(),
                        LinearConfig(3, 1).with_bias(false).init(dev()));
  std::vector<std::string> paths;
  seq.visit([&](const std::string& path, const auto&) { paths.push_back(path); });
  EXPECT_EQ(paths, (std::vector<std::string>{"0.weight", "0.bias", "2.weight"}));
  auto x = Tensor<2>::from_floats({{1.0, -1.0}}, dev());
  const auto& [a, relu, b] = seq.layers;
  auto want = b.forward(relu.forward(a.forward(x)));
  EXPECT_EQ(testing::host(seq.forward(x)), testing::host(want));
  EXPECT_EQ(seq.num_params(), 9 + 3);
}

TEST(Module, DisplayFollowsBurnsLayout) {
  Net n = make_net();
  EXPECT_EQ(n.to_string(),
            "Net {\n"
            "  input: Linear {d_input: 4, d_output: 3, bias: true, params: 15}\n"
            "  blocks: Vec<0..2> {\n"
            "    0: Block {\n"
            "      fc: Linear {d_input: 3, d_output: 3, bias: true, params: 12}\n"
            "      act: Relu\n"
            "      dropout: Dropout {prob: 0.5}\n"
            "      params: 12\n"
            "    }\n"
            "    1: Block {\n"
            "      fc: Linear {d_input: 3, d_output: 3, bias: false, params: 9}\n"
            "      act: Relu\n"
            "      dropout: None\n"
            "      params: 9\n"
            "    }\n"
            "    params: 21\n"
            "  }\n"
            "  norm: BatchNorm {num_features: 3, momentum: 0.1, epsilon: 1e-05, params: 12}\n"
            "  head: Linear {d_input: 3, d_output: 2, bias: true, params: 8}\n"
            "  width: 3\n"
            "  params: 56\n"
            "}");
  std::ostringstream os;
  os << LeakyReluConfig().init();
  EXPECT_EQ(os.str(), "LeakyRelu {negative_slope: 0.01}");
}

}  // namespace
}  // namespace ember::nn
