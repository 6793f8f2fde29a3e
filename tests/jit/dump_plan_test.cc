// EMBER_DUMP=plan writes the plan as it ran: every kernel with its variant, then each kernel's
// description (statements, loads and stores by buffer).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/jit/gpu_util.h"

namespace ember {
namespace {

TEST(DumpPlan, PrintsVariantsAndKernelDescriptions) {
  EMBER_REQUIRE_GPU_DEVICE();
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("ember_dump_plan_" + std::to_string(getpid()));
  fs::remove_all(dir);
  setenv("EMBER_DUMP", "plan", 1);
  setenv("EMBER_DUMP_DIR", dir.c_str(), 1);
  Device dev = testing::gpu_device();
  // A shape no other test uses, so this process plans it afresh (dumps are of new plans).
  auto x = Tensor<2>::from_data(testing::host_uniform({3, 41}, 5), dev);
  auto w = Tensor<2>::from_data(testing::host_uniform({41, 7}, 6), dev);
  auto y = activation::softmax(x.matmul(w), 1) * 2.0;
  y.to_data();
  unsetenv("EMBER_DUMP");
  unsetenv("EMBER_DUMP_DIR");
  std::string text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    text += std::string((std::istreambuf_iterator<char>(in)), {});
  }
  fs::remove_all(dir);
  EXPECT_NE(text.find("kernel 0: matmul"), std::string::npos) << text;
  EXPECT_NE(text.find("variant block="), std::string::npos) << text;
  EXPECT_NE(text.find("variant workgroup="), std::string::npos) << text;
  // The descriptions: a load of buffer 0 and a store, in the neutral notation.
  EXPECT_NE(text.find("=load b0<"), std::string::npos) << text;
  EXPECT_NE(text.find("  store"), std::string::npos) << text;
}

}  // namespace
}  // namespace ember
