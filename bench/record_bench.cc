// Saving and loading a 1 GiB state (16 f32 tensors of 4096 x 4096, 268M values) through each
// recorder, end to end: a module on the CPU device to a file and back into a module's tensors.
// Compare with bench/record_peer.py (safetensors and torch.save/torch.load on the same sizes, same
// directory). EMBER_RECORD_BENCH_DIR picks the directory (default /tmp: the page cache, as the
// Python peer); EMBER_RECORD_BENCH_MIB shrinks the state (CI smoke runs). Reported: bytes per
// second of state moved, the median of the repetitions.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "nn/module.h"
#include "nn/record.h"

namespace ember {
namespace {

struct Slab {
  nn::Param<Tensor<2>> w;
  EMBER_MODULE(Slab, w)
};
struct BigState {
  std::vector<Slab> tensors;
  EMBER_MODULE(BigState, tensors)
};

int64_t state_mib() {
  const char* s = std::getenv("EMBER_RECORD_BENCH_MIB");
  return s ? std::max(1L, std::atol(s)) : 1024;
}

std::string bench_path(const std::string& ext) {
  const char* d = std::getenv("EMBER_RECORD_BENCH_DIR");
  return std::string(d ? d : "/tmp") + "/ember_record_bench" + ext;
}

// 16 tensors of rows x 4096 f32, filled with values (not zeros: compression and the page cache
// must see real data).
BigState make_state() {
  const int64_t rows = std::max<int64_t>(1, state_mib() * 1024 * 1024 / 16 / 4096 / 4);
  BigState s;
  for (int i = 0; i < 16; ++i) {
    s.tensors.push_back(Slab{nn::Param<Tensor<2>>(
        Tensor<2>::random({rows, 4096}, Distribution::normal(0, 1), Device::cpu()))});
    (void)s.tensors.back().w.val().to_data();  // materialised before timing
  }
  return s;
}

const BigState& state() {
  static const BigState s = make_state();
  return s;
}

double state_bytes() { return static_cast<double>(nn::num_params(state())) * 4; }

record::SaveOptions save_options(bool durable, record::Precision precision) {
  record::SaveOptions o;
  o.durable = durable;
  o.precision = precision;
  return o;
}

void BM_Save(benchmark::State& st, const std::string& ext, bool durable) {
  const std::string path = bench_path(ext);
  for (auto _ : st) nn::save(state(), path, save_options(durable, record::Precision::full));
  st.SetBytesProcessed(static_cast<int64_t>(state_bytes()) * st.iterations());
  std::filesystem::remove(path);
}

// Load into the module's CPU tensors (every value read, converted and uploaded).
void BM_Load(benchmark::State& st, const std::string& ext, bool verify) {
  const std::string path = bench_path(ext);
  nn::save(state(), path, save_options(false, record::Precision::full));
  record::LoadOptions o;
  o.verify_checksums = verify;
  for (auto _ : st) {
    BigState loaded = nn::load(state(), path, o);
    // Force the values onto the device (a lazy backend would otherwise defer the upload).
    for (const auto& t : loaded.tensors)
      benchmark::DoNotOptimize(t.w.val().raw().is_materialized());
  }
  st.SetBytesProcessed(static_cast<int64_t>(state_bytes()) * st.iterations());
  std::filesystem::remove(path);
}

void register_all() {
  auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(3)
        ->ReportAggregatesOnly(true)
        ->MeasureProcessCPUTime()  // the CPU column counts the load's copy thread too
        ->UseRealTime();
  };
  for (const std::string ext : {".ember", ".safetensors"}) {
    const std::string f = ext.substr(1);
    add("save/" + f, [ext](benchmark::State& s) { BM_Save(s, ext, false); });
    add("load/" + f, [ext](benchmark::State& s) { BM_Load(s, ext, true); });
  }
  add("save/ember_durable", [](benchmark::State& s) { BM_Save(s, ".ember", true); });
  add("load/ember_no_checksum", [](benchmark::State& s) { BM_Load(s, ".ember", false); });
}

}  // namespace
}  // namespace ember

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  ember::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
