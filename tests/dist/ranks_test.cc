// Several ranks, one GPU each, launched by scripts/dist-run.sh (RANK, WORLD_SIZE, LOCAL_RANK,
// EMBER_DIST_INIT); skipped when WORLD_SIZE is unset. Expected values are closed forms of the
// ranks' inputs, and training is checked against one device stepping on the combined batch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "frontend/distributed.h"
#include "frontend/random_state.h"
#include "frontend/stats.h"
#include "nn/nn.h"
#include "optim/data_parallel.h"
#include "optim/optim.h"

namespace ember {
namespace {

const dist::ProcessGroup* group() {
  const char* world = std::getenv("WORLD_SIZE");
  if (world == nullptr || std::atoi(world) < 2) return nullptr;
  static const dist::ProcessGroup g = dist::ProcessGroup::from_env();
  return &g;
}

#define NEED_RANKS()                                                     \
  const dist::ProcessGroup* gp = group();                                \
  if (gp == nullptr) GTEST_SKIP() << "needs WORLD_SIZE >= 2 (dist-run)"; \
  const dist::ProcessGroup& g = *gp

std::vector<float> host(const RawTensor& t) { return t.to_data().to_vec<float>(); }

// x[i] = i + 100 * rank, i < n.
Tensor<1> ramp(int64_t n, int rank, const Device& dev) {
  return Tensor<1, Int>::arange(0, n, dev).float_() + 100.0 * rank;
}

TEST(DistRanks, CollectivesOfKnownValues) {
  NEED_RANKS();
  const int n = g.size(), r = g.rank();
  const int64_t len = 1000;
  auto x = ramp(len, r, g.device());
  auto sum = host(dist::all_reduce(x, dist::ReduceOp::Sum, g).raw());
  auto mean = host(dist::all_reduce(x, dist::ReduceOp::Mean, g).raw());
  auto max = host(dist::all_reduce(x, dist::ReduceOp::Max, g).raw());
  auto from1 = host(dist::broadcast(x, 1, g).raw());
  auto gathered = host(dist::all_gather(x.raw(), g));
  auto scattered = host(dist::reduce_scatter(x.raw(), dist::ReduceOp::Sum, g));
  const double rank_sum = 100.0 * n * (n - 1) / 2;
  for (int64_t i = 0; i < len; ++i) {
    ASSERT_EQ(sum[i], n * i + rank_sum) << i;
    ASSERT_FLOAT_EQ(mean[i], (n * i + rank_sum) / n) << i;
    ASSERT_EQ(max[i], i + 100.0 * (n - 1)) << i;
    ASSERT_EQ(from1[i], i + 100.0) << i;
  }
  ASSERT_EQ(gathered.size(), static_cast<size_t>(n * len));
  for (int q = 0; q < n; ++q)
    for (int64_t i = 0; i < len; ++i) ASSERT_EQ(gathered[q * len + i], i + 100.0 * q);
  const int64_t part = len / n;
  ASSERT_EQ(scattered.size(), static_cast<size_t>(part));
  for (int64_t i = 0; i < part; ++i) ASSERT_EQ(scattered[i], n * (r * part + i) + rank_sum);
}

// A collective whose result only rank 0 reads still runs on every rank (it is not pruned as
// dead), so the next collective pairs with the next one everywhere.
TEST(DistRanks, ACollectiveNobodyReadsStillRunsOnEveryRank) {
  NEED_RANKS();
  const int n = g.size(), r = g.rank();
  auto x = ramp(64, r, g.device());
  {
    auto first = dist::all_reduce(x, dist::ReduceOp::Sum, g);
    if (r == 0) ASSERT_EQ(host(first.raw())[1], n * 1 + 100.0 * n * (n - 1) / 2);
  }  // dropped unread on the other ranks
  auto second = host(dist::all_reduce(x * 2.0, dist::ReduceOp::Sum, g).raw());
  ASSERT_EQ(second[1], 2 * (n * 1 + 100.0 * n * (n - 1) / 2)) << "paired with another collective";
  // The vector form issues at once: a collective recorded before it and still pending on some
  // ranks (rank 0 alone read it) must go first on every rank.
  auto y = x + 1.0;
  (void)host(y.raw());
  auto pending = dist::all_reduce(x, dist::ReduceOp::Max, g);
  if (r == 0) ASSERT_EQ(host(pending.raw())[1], 1 + 100.0 * (n - 1));
  auto now = dist::all_reduce(std::vector<RawTensor>{y.raw()}, dist::ReduceOp::Sum,
                              std::vector<dist::ProcessGroup>{g});
  ASSERT_EQ(host(pending.raw())[1], 1 + 100.0 * (n - 1));
  ASSERT_EQ(host(now[0])[1], n * 2 + 100.0 * n * (n - 1) / 2);
}

struct Mlp {
  nn::Linear fc1, fc2, fc3;
  Tensor<2> forward(const Tensor<2>& x) const {
    return fc3.forward(activation::relu(fc2.forward(activation::relu(fc1.forward(x)))));
  }
  EMBER_MODULE(Mlp, fc1, fc2, fc3)
};

Mlp make_mlp(const Device& dev) {
  return Mlp{nn::LinearConfig(16, 64).init(dev), nn::LinearConfig(64, 64).init(dev),
             nn::LinearConfig(64, 4).init(dev)};
}

// Two ranks each stepping on half of every batch, gradients averaged, reach the parameters of
// one device stepping on the whole batch (Adam, 50 steps, MSE). Each step ends by reading its
// loss, as a training loop that prints it: from the third step on the step's flush replays as
// one CUDA graph with the gradient all-reduces captured inside it.
TEST(DistRanks, DataParallelMlpMatchesOneDeviceOnTheCombinedBatch) {
  NEED_RANKS();
  const int n = g.size(), r = g.rank();
  const int64_t per_rank = 32, steps = 50;
  const Device dev = g.device();
  ember::seed(1000 + r);  // replicas start different: the broadcast must make them equal
  optim::DataParallel dp(g);
  Mlp model = dp.broadcast_module(make_mlp(dev));
  Mlp reference = nn::fork(model, dev);
  auto opt = optim::AdamConfig().init(), ref_opt = optim::AdamConfig().init();
  reset_stats(dev);
  for (int64_t step = 0; step < steps; ++step) {
    ember::seed(static_cast<uint64_t>(step));  // the same combined batch on every rank
    auto x = Tensor<2>::random({n * per_rank, 16}, Distribution::normal(0, 1), dev);
    auto y = Tensor<2>::random({n * per_rank, 4}, Distribution::normal(0, 1), dev);
    auto xs = x.narrow(0, r * per_rank, per_rank), ys = y.narrow(0, r * per_rank, per_rank);
    auto d = model.forward(xs) - ys;
    auto loss = (d * d).mean();
    auto grads = optim::GradientsParams::from_grads(loss.backward(), model);
    model = opt.step(1e-3, model, dp.sync(std::move(grads), model));
    auto dr = reference.forward(x) - y;
    reference =
        ref_opt.step(1e-3, reference,
                     optim::GradientsParams::from_grads((dr * dr).mean().backward(), reference));
    double l = loss.into_scalar();
    if (step % 10 == 0) std::printf("rank %d step %lld loss %.5f\n", r, (long long)step, l);
  }
  const Stats st = stats(dev);
  std::printf("rank %d: %lld collectives, %lld inside CUDA graphs\n", r,
              static_cast<long long>(st.collectives), static_cast<long long>(st.graph_collectives));
  EXPECT_GT(st.collectives, 0) << "the all-reduces are recorded lazily into the step";
  if (std::getenv("EMBER_CUDA_GRAPHS") == nullptr) {
    EXPECT_GT(st.graph_collectives, st.collectives / 2) << "most steps replay as one graph";
  }
  std::vector<std::vector<float>> got, want;
  nn::visit_params(model,
                   [&](const std::string&, const auto& p) { got.push_back(host(p.val().raw())); });
  nn::visit_params(reference,
                   [&](const std::string&, const auto& p) { want.push_back(host(p.val().raw())); });
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t k = 0; k < got.size(); ++k)
    for (size_t i = 0; i < got[k].size(); ++i)
      worst =
          std::max(worst, std::abs(double(got[k][i]) - want[k][i]) / (1e-3 + std::abs(want[k][i])));
  std::printf("rank %d: worst relative difference to one device after %lld steps: %.3g\n", r,
              static_cast<long long>(steps), worst);
  EXPECT_LT(worst, 1e-4);
}

// Rank 1 dies mid-training (EMBER_DIST_TEST_DIE=1): the others must exit with an error, not
// hang. dist-run.sh checks the exit codes and the time taken.
TEST(DistRanks, PeerDeathEndsTheOthers) {
  NEED_RANKS();
  if (std::getenv("EMBER_DIST_TEST_DIE") == nullptr) GTEST_SKIP() << "set EMBER_DIST_TEST_DIE";
  auto x = ramp(1 << 20, g.rank(), g.device());
  for (int step = 0; step < 1000; ++step) {
    if (g.rank() == 1 && step == 5) std::_Exit(7);
    x = dist::all_reduce(x, dist::ReduceOp::Mean, g);
    (void)host(x.narrow(0, 0, 1).raw());
  }
  FAIL() << "rank " << g.rank() << " finished 1000 all-reduces although rank 1 died";
}

// One process, every GPU it sees (ProcessGroup::local); skipped under dist-run and with < 2 GPUs.
TEST(DistLocal, OneProcessAllReduceOverItsGpus) {
  if (std::getenv("WORLD_SIZE") != nullptr) GTEST_SKIP() << "one process per GPU here";
  int gpus = 0;
  while (gpus < 8 && Device::cuda(gpus).is_available()) ++gpus;
  if (gpus < 2 || !dist::available()) GTEST_SKIP() << "needs 2 CUDA devices and NCCL";
  std::vector<Device> devs;
  for (int i = 0; i < gpus; ++i) devs.push_back(Device::cuda(i));
  auto groups = dist::ProcessGroup::local(devs);
  std::vector<RawTensor> xs;
  for (int i = 0; i < gpus; ++i) xs.push_back(ramp(4096, i, devs[i]).raw());
  auto sums = dist::all_reduce(xs, dist::ReduceOp::Sum, groups);
  const double rank_sum = 100.0 * gpus * (gpus - 1) / 2;
  for (int i = 0; i < gpus; ++i) {
    auto v = host(sums[i]);
    for (int64_t k = 0; k < 4096; ++k) ASSERT_EQ(v[k], gpus * k + rank_sum) << i << " " << k;
  }
}

}  // namespace
}  // namespace ember
