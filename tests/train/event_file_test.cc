// TensorBoard event files: CRC32C against its published check value, records read back with
// their CRCs checked, corruption reported with the offset.
#include "train/event_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/nn/test_util.h"
#include "train/logger.h"

namespace ember::train {
namespace {

using nn::testing::expect_error;

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ember_train_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(EventFile, Crc32cCheckValue) {
  // The CRC-32C check value of "123456789" (RFC 3720, B.4).
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
  // 32 zero bytes (RFC 3720's first test vector).
  const std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  // TFRecord's mask: rotate right by 15, add 0xa282ead8.
  const uint32_t c = 0xE3069283u;
  EXPECT_EQ(masked_crc32c("123456789", 9), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

TEST(EventFile, ScalarsReadBack) {
  auto dir = fresh_dir("events");
  std::string path;
  {
    EventFileWriter w(dir.string());
    w.add_scalar("Loss", 0.5, 10);
    w.add_scalar("Accuracy", 87.25, 20);
    w.add_scalar("epoch/Loss", -1.0e-3, 300000000000LL);
    path = w.path();
  }
  EXPECT_NE(path.find("events.out.tfevents."), std::string::npos);
  int64_t records = 0;
  auto events = read_scalar_events(path, &records);
  EXPECT_EQ(records, 4);  // the file-version event and three scalars
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].tag, "Loss");
  EXPECT_FLOAT_EQ(events[0].value, 0.5f);
  EXPECT_EQ(events[0].step, 10);
  EXPECT_EQ(events[1].tag, "Accuracy");
  EXPECT_FLOAT_EQ(events[1].value, 87.25f);
  EXPECT_EQ(events[2].step, 300000000000LL);
  EXPECT_FLOAT_EQ(events[2].value, -1.0e-3f);
  EXPECT_GT(events[0].wall_time, 1.6e9);  // seconds since 1970, after 2020
}

TEST(EventFile, CorruptionIsReportedWithItsOffset) {
  auto dir = fresh_dir("corrupt");
  std::string path;
  {
    EventFileWriter w(dir.string());
    w.add_scalar("Loss", 0.5, 1);
    path = w.path();
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t size = bytes.size();
  bytes[size - 6] ^= 0x40;  // inside the last record's data
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  expect_error([&] { read_scalar_events(path); }, {path, "data CRC mismatch", "offset"});
  bytes.resize(size - 2);  // cut inside the last record
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  expect_error([&] { read_scalar_events(path); }, {"truncated"});
}

TEST(EventFile, LoggerWritesTrainAndValidRuns) {
  auto dir = fresh_dir("event_logger");
  {
    EventMetricLogger logger(dir.string());
    logger.log(Split::Train, 1, 5, 5.0, "Loss", 1.25);
    logger.log(Split::Valid, 1, 2, 10.0, "Loss", 1.5);
    logger.log_epoch(Split::Valid, 1, "Loss", 1.5);
  }
  for (const char* split : {"train", "valid"}) {
    auto files = std::filesystem::directory_iterator(dir / split);
    const auto path = files->path().string();
    auto events = read_scalar_events(path);
    if (std::string(split) == "train") {
      ASSERT_EQ(events.size(), 1u);
      EXPECT_EQ(events[0].step, 5);
    } else {
      ASSERT_EQ(events.size(), 2u);
      EXPECT_EQ(events[1].tag, "epoch/Loss");
      EXPECT_EQ(events[1].step, 1);
    }
  }
}

}  // namespace
}  // namespace ember::train
