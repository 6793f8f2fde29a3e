// ResNet-18 inference from its ONNX file (scripts/make_onnx_fixtures.py --full-resnet18 PATH
// writes one; EMBER_ONNX_BENCH_MODEL names it): the import on EMBER_DEVICE at batch 1 and 32, in
// f32 and bf16, each iteration a forward pass whose output is read back. bench/onnx_reference.py
// times ONNX Runtime and PyTorch on the same file and sizes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>

#include "bench/bench_util.h"
#include "import/onnx/model.h"

namespace {

namespace ox = ember::onnx_import;
using namespace ember;

// The model imported in f32 or bf16 (ImportOptions::float_dtype), once each.
const ox::Model* model(DType dtype) {
  static std::map<DType, std::unique_ptr<ox::Model>> models;
  const char* path = std::getenv("EMBER_ONNX_BENCH_MODEL");
  if (!path || !*path) return nullptr;
  auto& m = models[dtype];
  if (!m) {
    ox::ImportOptions options;
    options.device = bench::bench_device();
    options.trainable = false;  // inference: no tape
    if (dtype != DType::F32) options.float_dtype = dtype;
    m = std::make_unique<ox::Model>(ox::Model::load(path, options));
  }
  return m.get();
}

void BM_onnx_resnet18(benchmark::State& state) {
  DType dtype = state.range(1) ? DType::BF16 : DType::F32;
  const ox::Model* m = model(dtype);
  if (!m) {
    state.SkipWithError("set EMBER_ONNX_BENCH_MODEL to a ResNet-18 ONNX file");
    return;
  }
  int64_t batch = state.range(0);
  Device dev = m->device();
  auto x = Tensor<4>::random({batch, 3, 224, 224}, Distribution::normal(0, 1), dev).cast(dtype);
  auto step = [&] {
    std::vector<RawTensor> y = m->forward({x.raw()});
    benchmark::DoNotOptimize(y[0].to_data());
  };
  step();  // compiles and tunes the kernels
  for (auto _ : state) step();
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_onnx_resnet18)
    ->ArgNames({"batch", "bf16"})
    ->ArgsProduct({{1, 32}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The small transformer fixture (tests/import/onnx/fixtures): 204 nodes, a third of them shape
// arithmetic that runs on the host each forward, so at small sizes this measures the import's
// per-run overhead more than the kernels.
void BM_onnx_small_transformer(benchmark::State& state) {
  ox::ImportOptions options;
  options.device = bench::bench_device();
  options.trainable = false;
  static const ox::Model m = ox::Model::load(EMBER_ONNX_FIXTURES "/transformer.onnx", options);
  int64_t batch = state.range(0), seq = state.range(1);
  std::vector<int64_t> tokens(batch * seq);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int64_t>(i % 50);
  RawTensor x = detail::raw_from_data(TensorData(tokens, Shape{batch, seq}), m.device());
  auto step = [&] { benchmark::DoNotOptimize(m.forward({x})[0].to_data()); };
  step();
  for (auto _ : state) step();
}
BENCHMARK(BM_onnx_small_transformer)
    ->ArgNames({"batch", "seq"})
    ->Args({1, 16})
    ->Args({8, 128})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
