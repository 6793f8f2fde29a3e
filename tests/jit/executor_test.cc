// The reference executor: liveness, per-node errors, dumps.
#include "jit/exec/executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ir/builder.h"
#include "jit/dump.h"

namespace ember::jit {
namespace {

using ir::BinaryFn;

TEST(Executor, RunsGraphAndReportsPerOutputErrors) {
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.input(0, {DType::F32, {3}});
  auto idx = b.input(1, {DType::I32, {1}});
  auto ok = b.binary(BinaryFn::Mul, x, x);
  auto bad = b.gather(x, 0, idx);
  std::vector<float> xs{1, 2, 3};
  std::vector<int32_t> is{9};
  auto& cpu = runtime::cpu_backend();
  std::vector<runtime::Array> inputs{cpu.upload({DType::F32, {3}}, xs.data()),
                                     cpu.upload({DType::I32, {1}}, is.data())};
  auto out = execute(g, {ok, bad}, inputs, cpu);
  ASSERT_TRUE(out[0].array.has_value());
  std::vector<float> got(3);
  cpu.download(*out[0].array, got.data());
  EXPECT_EQ(got, (std::vector<float>{1, 4, 9}));
  EXPECT_FALSE(out[1].array.has_value());
  EXPECT_NE(out[1].error.find("index 9 out of range"), std::string::npos);
}

TEST(Executor, ReleasesIntermediatesEarly) {
  // A chain of 50 doublings of a 1 MiB tensor never holds more than a few buffers at once.
  ir::Graph g;
  ir::Builder b(g);
  const int64_t n = 1 << 18;
  auto v = b.input(0, {DType::F32, {n}});
  for (int i = 0; i < 50; ++i) v = b.binary(BinaryFn::Add, v, v);
  std::vector<float> xs(n, 1.0f);
  auto& cpu = runtime::cpu_backend();
  std::vector<runtime::Array> inputs{cpu.upload({DType::F32, {n}}, xs.data())};
  cpu.reset_peak_memory();
  int64_t base = cpu.memory_stats().bytes_in_use;
  auto out = execute(g, {v}, inputs, cpu);
  EXPECT_LE(cpu.memory_stats().peak_bytes - base, 3 * n * 4);
}

TEST(Dump, WritesIrFilesToDumpDir) {
  auto dir = std::filesystem::temp_directory_path() / "ember_dump_test";
  std::filesystem::remove_all(dir);
  setenv("EMBER_DUMP", "ir", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.full({2}, DType::F32, ir::Scalar::from_double(1.5));
  auto y = b.unary(ir::UnaryFn::Exp, x);
  execute(g, {y}, {}, runtime::cpu_backend());
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    std::ifstream in(e.path());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("unary.exp(%0)"), std::string::npos) << text;
  }
  EXPECT_EQ(files, 1);
  EXPECT_FALSE(dump_enabled("ir"));
}

// A dump directory that cannot exist (a path under a regular file) costs one warning, not the
// program: the flush completes with its results (it used to throw std::filesystem_error inside
// the flush and end in std::terminate).
TEST(Dump, UnusableDumpDirWarnsAndCarriesOn) {
  auto file = std::filesystem::temp_directory_path() / "ember_dump_not_a_dir";
  std::ofstream(file) << "a file";
  setenv("EMBER_DUMP", "ir", 1);
  setenv("EMBER_DUMP_DIR", (file / "sub").c_str(), 1);
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.full({3}, DType::F32, ir::Scalar::from_double(2.0));
  auto y = b.unary(ir::UnaryFn::Sqrt, x);
  ::testing::internal::CaptureStderr();
  std::vector<Outcome> out;
  EXPECT_NO_THROW(out = execute(g, {y}, {}, runtime::cpu_backend()));
  EXPECT_NO_THROW(execute(g, {y}, {}, runtime::cpu_backend()));
  std::string err = ::testing::internal::GetCapturedStderr();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  std::filesystem::remove(file);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].error.empty()) << out[0].error;
  float v[3];
  runtime::cpu_backend().download(*out[0].array, v);
  for (float f : v) EXPECT_FLOAT_EQ(f, std::sqrt(2.0f));
  // One warning for the process, however many dumps failed.
  EXPECT_NE(err.find("EMBER_DUMP_DIR"), std::string::npos) << err;
  EXPECT_EQ(err.find("EMBER_DUMP_DIR"), err.rfind("EMBER_DUMP_DIR")) << err;
}

}  // namespace
}  // namespace ember::jit
