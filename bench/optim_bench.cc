// optimizer_step: one AdamW step over the parameters of torchvision's ResNet-18 (62 tensors,
// 11.69M values) with fixed gradients, the step's own cost (device time, every update fused as
// the device allows); torch_reference.py times torch's foreach and fused AdamW on the same set.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/bench_util.h"
#include "nn/nn.h"
#include "optim/optim.h"

namespace ember {
namespace {

using bench::bench_device;
using bench::run_timed;
using bench::shrink;

// One parameter as a module (vectors of modules are module fields).
template <int D>
struct One {
  nn::Param<Tensor<D>> value;
  EMBER_MODULE(One, value)
};

// The parameter tensors of ResNet-18 in torchvision's order, by rank.
struct ResNet18Params {
  std::vector<One<4>> convs;
  std::vector<One<1>> vectors;  // batch-norm weights and biases, the fc bias
  std::vector<One<2>> fc;
  EMBER_MODULE(ResNet18Params, convs, vectors, fc)
};

ResNet18Params resnet18_params(int64_t div, const Device& dev) {
  ResNet18Params p;
  auto conv = [&](int64_t o, int64_t i, int64_t k) {
    o = std::max<int64_t>(1, o / div), i = i == 3 ? 3 : std::max<int64_t>(1, i / div);
    p.convs.push_back({nn::Param<Tensor<4>>(
        Tensor<4>::random({o, i, k, k}, Distribution::normal(0, 0.05), dev))});
  };
  auto bn = [&](int64_t c) {
    c = std::max<int64_t>(1, c / div);
    p.vectors.push_back({nn::Param<Tensor<1>>(Tensor<1>::ones({c}, dev))});
    p.vectors.push_back({nn::Param<Tensor<1>>(Tensor<1>::zeros({c}, dev))});
  };
  conv(64, 3, 7);
  bn(64);
  int64_t in = 64;
  for (int64_t width : {64, 128, 256, 512}) {
    for (int block = 0; block < 2; ++block) {
      bool down = block == 0 && width != 64;
      conv(width, block == 0 ? in : width, 3);
      bn(width);
      conv(width, width, 3);
      bn(width);
      if (down) {
        conv(width, in, 1);
        bn(width);
      }
    }
    in = width;
  }
  p.fc.push_back({nn::Param<Tensor<2>>(Tensor<2>::random(
      {512 / div, std::max<int64_t>(1, 1000 / div)}, Distribution::normal(0, 0.05), dev))});
  p.vectors.push_back(
      {nn::Param<Tensor<1>>(Tensor<1>::zeros({std::max<int64_t>(1, 1000 / div)}, dev))});
  return p;
}

// Gradients of the same shapes, computed once.
std::vector<std::pair<nn::ParamId, RawTensor>> fixed_grads(const ResNet18Params& p) {
  std::vector<std::pair<nn::ParamId, RawTensor>> out;
  ember::seed(5);
  nn::visit_params(p, [&](const std::string&, const auto& param) {
    out.emplace_back(param.id(), ops::random(param.shape(), Distribution::normal(0, 1e-2),
                                             DType::F32, param.device()));
  });
  for (auto& [id, g] : out) g.to_data();
  return out;
}

void BM_optimizer_step(benchmark::State& state) {
  const Device dev = bench_device();
  ember::seed(4);
  ResNet18Params params = resnet18_params(shrink() > 1 ? 8 : 1, dev);
  auto grads = fixed_grads(params);
  optim::AdamW adamw = optim::AdamWConfig().init();
  int64_t values = params.num_params();
  run_timed(
      state, state.range(0),
      [&] {
        optim::GradientsParams g;
        for (const auto& [id, t] : grads) g.register_raw(id, t);
        params = adamw.step(1e-3, params, std::move(g));
      },
      // A perfect step reads parameter, gradient and both moments and writes three of them.
      7.0 * 4 * static_cast<double>(values));
  state.counters["tensors"] = static_cast<double>(grads.size());
}
BENCHMARK(BM_optimizer_step)
    ->ArgName("fused")
    ->Arg(1)
    ->Arg(0)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ember
