// Data-parallel training throughput: a pre-norm transformer block (the transformer_block
// workload as an nn module) stepped with SGD, its gradients averaged over the ranks of the
// group before each step. Run once as a single process (a group of one: the single-GPU
// baseline) and once per rank under scripts/dist-run.sh; samples/s counts the whole group at
// the same per-GPU batch, so the ratio of the two runs is the scaling. Iteration counts are
// fixed: every rank must run the same number of collectives. Only rank 0 reports.
#include <benchmark/benchmark.h>

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

struct Block {
  nn::LayerNorm ln1, ln2;
  nn::Linear qkv, proj, fc1, fc2;
  int64_t heads = 16;

  Tensor<3> forward(const Tensor<3>& x) const {
    const int64_t B = x.shape()[0], S = x.shape()[1], D = x.shape()[2], Dh = D / heads;
    auto split = [&](const Tensor<3>& t) {  // [B, S, D] -> [B, H, S, Dh]
      return t.reshape({B, S, heads, Dh}).swap_dims(1, 2);
    };
    auto h = qkv.forward(ln1.forward(x));
    auto q = split(h.narrow(2, 0, D)), k = split(h.narrow(2, D, D)),
         v = split(h.narrow(2, 2 * D, D));
    auto scores = q.matmul(k.swap_dims(2, 3)) * (1.0 / std::sqrt(static_cast<double>(Dh)));
    auto attn = activation::softmax(scores, 3).matmul(v).swap_dims(1, 2).reshape({B, S, D});
    auto x1 = x + proj.forward(attn);
    return x1 + fc2.forward(activation::gelu(fc1.forward(ln2.forward(x1))));
  }
  EMBER_MODULE(Block, ln1, ln2, qkv, proj, fc1, fc2)
};

Block make_block(int64_t d, int64_t heads, const Device& dev) {
  return Block{nn::LayerNormConfig(d).init(dev),
               nn::LayerNormConfig(d).init(dev),
               nn::LinearConfig(d, 3 * d).init(dev),
               nn::LinearConfig(d, d).init(dev),
               nn::LinearConfig(d, 4 * d).init(dev),
               nn::LinearConfig(4 * d, d).init(dev),
               heads};
}

const dist::ProcessGroup& group() {
  static const dist::ProcessGroup g = dist::ProcessGroup::from_env();
  return g;
}

// One training step per iteration, waited for (wall clock, host included).
void BM_ddp_transformer_block(benchmark::State& state) {
  const bool small = std::getenv("EMBER_BENCH_SHRINK") != nullptr;
  const int64_t B = small ? 1 : state.range(0), S = small ? 64 : 1024, D = small ? 128 : 1024,
                H = small ? 4 : 16;
  const dist::ProcessGroup& g = group();
  const Device dev = g.device();
  optim::DataParallel dp(g);
  ember::seed(7);
  Block block = dp.broadcast_module(make_block(D, H, dev));
  auto opt = optim::SgdConfig().init();
  ember::seed(100 + g.rank());  // each rank its own data
  auto x = Tensor<3>::random({B, S, D}, Distribution::normal(0, 1), dev);
  auto step = [&] {
    auto y = block.forward(x);
    auto loss = (y * y).mean();
    auto grads = optim::GradientsParams::from_grads(loss.backward(), block);
    block = opt.step(1e-4, block, dp.sync(std::move(grads), block));
    sync(dev);
  };
  for (int i = 0; i < 3; ++i) step();  // compile and tune outside the timing
  reset_stats(dev);
  for (auto _ : state) step();
  // Collectives per step, and how many of them ran inside the step's CUDA graph.
  const Stats st = stats(dev);
  state.counters["collectives"] =
      benchmark::Counter(static_cast<double>(st.collectives), benchmark::Counter::kAvgIterations);
  state.counters["in_graphs"] = benchmark::Counter(static_cast<double>(st.graph_collectives),
                                                   benchmark::Counter::kAvgIterations);
  state.counters["world"] = g.size();
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(B * g.size()), benchmark::Counter::kIsIterationInvariantRate);
}
// Batch 8 (compute-bound: the scaling figure) and batch 1 (the 50 MB of gradients weigh
// more: where overlapping them with backward shows).
BENCHMARK(BM_ddp_transformer_block)
    ->Arg(8)
    ->Arg(1)
    ->Iterations(20)
    ->Repetitions(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Ranks other than 0 run the same benchmarks and report nothing.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (ember::group().is_main()) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    ember::SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(&silent);
  }
  benchmark::Shutdown();
  return 0;
}
