// What runs without several GPUs: a group of one on any device (every collective the identity,
// the data-parallel API a no-op), argument errors, and NCCL reported unavailable when absent.
#include <gtest/gtest.h>

#include <cstdlib>

#include "frontend/distributed.h"
#include "nn/nn.h"
#include "optim/data_parallel.h"
#include "optim/optim.h"

namespace ember {
namespace {

std::vector<float> host(const RawTensor& t) { return t.to_data().to_vec<float>(); }

Tensor<2> known(const Device& dev) {
  return Tensor<2>::from_data(TensorData(std::vector<float>{1, -2, 3, 4.5f, 5, 6}, Shape{2, 3}),
                              dev);
}

TEST(DistSingle, GroupOfOneIsTheIdentity) {
  auto g = dist::ProcessGroup::single(Device::cpu());
  EXPECT_EQ(g.rank(), 0);
  EXPECT_EQ(g.size(), 1);
  EXPECT_TRUE(g.is_main());
  auto x = known(Device::cpu());
  std::vector<float> want{1, -2, 3, 4.5f, 5, 6};
  EXPECT_EQ(host(dist::all_reduce(x, dist::ReduceOp::Sum, g).raw()), want);
  EXPECT_EQ(host(dist::all_reduce(x, dist::ReduceOp::Mean, g).raw()), want);
  EXPECT_EQ(host(dist::broadcast(x, 0, g).raw()), want);
  EXPECT_EQ(host(dist::all_gather(x.raw(), g)), want);
  EXPECT_EQ(host(dist::reduce_scatter(x.raw(), dist::ReduceOp::Sum, g)), want);
}

TEST(DistSingle, FromEnvWithoutWorldSizeIsAGroupOfOne) {
  unsetenv("WORLD_SIZE");
  auto g = dist::ProcessGroup::from_env();
  EXPECT_EQ(g.size(), 1);
  EXPECT_EQ(g.device(), Device::default_device());
}

TEST(DistSingle, ErrorsNameTheProblem) {
  auto g = dist::ProcessGroup::single(Device::cpu());
  auto x = known(Device::cpu());
  try {
    dist::broadcast(x, 1, g);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("root 1"), std::string::npos) << e.what();
  }
  try {
    dist::ProcessGroup::join(Device::cpu(), 0, 2, "file:/tmp/x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
  try {
    dist::ProcessGroup::join(Device::cuda(0), 0, 2, "carrier-pigeon");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("carrier-pigeon"), std::string::npos) << e.what();
  }
  try {
    dist::ProcessGroup::join(Device::cuda(0), 2, 2, "file:/tmp/x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 of a group of 2"), std::string::npos) << e.what();
  }
  // A group of one on a device the tensor is not on.
  auto other = dist::ProcessGroup::single(Device::vulkan(0));
  EXPECT_THROW(dist::all_reduce(x, dist::ReduceOp::Sum, other), Error);
}

// A process without libnccl.so.2 runs and says why collectives are unavailable.
TEST(DistSingle, MissingNcclIsReportedUnavailable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("EMBER_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
        std::string why;
        bool ok = dist::available(&why);
        std::fprintf(stderr, "available=%d why=%s\n", ok, why.c_str());
        std::exit(ok ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "available=0 why=.*(libnccl|NCCL)");
}

struct Net {
  nn::Linear fc1, fc2;
  Tensor<2> forward(const Tensor<2>& x) const {
    return fc2.forward(activation::relu(fc1.forward(x)));
  }
  EMBER_MODULE(Net, fc1, fc2)
};

TEST(DistSingle, DataParallelOfOneLeavesModelAndGradientsAlone) {
  Net net{nn::LinearConfig(3, 4).init(Device::cpu()), nn::LinearConfig(4, 2).init(Device::cpu())};
  optim::DataParallel dp(dist::ProcessGroup::single(Device::cpu()));
  Net same = dp.broadcast_module(net);
  EXPECT_EQ(host(same.fc1.weight.val().raw()), host(net.fc1.weight.val().raw()));
  auto loss =
      net.forward(known(Device::cpu()).reshape({3, 2}).swap_dims(0, 1).narrow(1, 0, 3)).sum();
  auto grads = optim::GradientsParams::from_grads(loss.backward(), net);
  auto before = host(*grads.get_raw(net.fc1.weight.id()));
  auto synced = dp.sync(std::move(grads), net);
  EXPECT_EQ(host(*synced.get_raw(net.fc1.weight.id())), before);
}

}  // namespace
}  // namespace ember
