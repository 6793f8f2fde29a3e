// The module system: paths from the visitor, parameter counts, ParamIds kept across to_device,
// fork and valid(), lazy initialisation, containers and display.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nn/nn.h"

namespace ember::nn {
namespace {

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
  Linear head;
  int64_t width = 3;
  EMBER_MODULE(Net, input, blocks, head, width)
};

Net make_net(const Device& dev) {
  Net n;
  n.input = LinearConfig(4, 3).init(dev);
  n.blocks.push_back({LinearConfig(3, 3).init(dev), Relu(), DropoutConfig(0.5).init()});
  n.blocks.push_back({LinearConfig(3, 3).with_bias(false).init(dev), Relu(), std::nullopt});
  n.head = LinearConfig(3, 2).init(dev);
  return n;
}

std::vector<std::string> paths(const Net& n) {
  std::vector<std::string> out;
  n.visit([&](const std::string& path, const auto&) { out.push_back(path); });
  return out;
}

TEST(Module, VisitorPathsFollowTheDeclaration) {
  Net n = make_net(Device::cpu());
  EXPECT_EQ(paths(n), (std::vector<std::string>{"input.weight", "input.bias", "blocks.0.fc.weight",
                                                "blocks.0.fc.bias", "blocks.1.fc.weight",
                                                "head.weight", "head.bias"}));
}

TEST(Module, NumParamsCountsEveryElement) {
  Net n = make_net(Device::cpu());
  // 4*3+3, 3*3+3, 3*3 (no bias), 3*2+2
  EXPECT_EQ(n.num_params(), 15 + 12 + 9 + 8);
  EXPECT_EQ(LinearConfig(1024, 512).init(Device::cpu()).num_params(), 524800);
}

}  // namespace
}  // namespace ember::nn
