// read_idx on small hand-made files, each case both plain and gzip-compressed: valid files come
// back with their dims and bytes; every malformed one throws ember::Error naming the file and
// the fault.
#include "data/idx.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using testing::Bytes;
using testing::expect_error;
using testing::idx_bytes;
using testing::iota_bytes;
using testing::ScratchDir;

class IdxTest : public ::testing::TestWithParam<bool> {
 protected:
  bool gzip() const { return GetParam(); }

  std::string write(const Bytes& bytes) {
    std::string path = dir_.file(gzip() ? "f-idx-ubyte.gz" : "f-idx-ubyte");
    testing::write_file(path, bytes, gzip());
    return path;
  }

  ScratchDir dir_;
};

TEST_P(IdxTest, ReadsRank3) {
  Bytes data = iota_bytes(2 * 3 * 4);
  IdxArray a = read_idx(write(idx_bytes(0x08, {2, 3, 4}, data)));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(a.numel(), 24);
  EXPECT_EQ(a.data, data);
}

TEST_P(IdxTest, ReadsRank1) {
  IdxArray a = read_idx(write(idx_bytes(0x08, {5}, {9, 0, 255, 1, 7})));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{5}));
  EXPECT_EQ(a.data, (Bytes{9, 0, 255, 1, 7}));
}

TEST_P(IdxTest, ReadsEmptyArray) {
  IdxArray a = read_idx(write(idx_bytes(0x08, {0, 28, 28}, {})));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{0, 28, 28}));
  EXPECT_TRUE(a.data.empty());
}

// More than the reader's 1 MiB chunk, so the data arrives over several reads; the dims use all
// four header bytes.
TEST_P(IdxTest, ReadsAcrossChunks) {
  const uint32_t n = (3u << 20) + 5;
  Bytes data = iota_bytes(n);
  IdxArray a = read_idx(write(idx_bytes(0x08, {n, 1}, data)));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{n, 1}));
  EXPECT_EQ(a.data, data);
}

TEST_P(IdxTest, MissingFile) {
  std::string path = dir_.file("absent.gz");
  expect_error([&] { read_idx(path); }, {path, "cannot open", "No such file"});
}

TEST_P(IdxTest, BadMagic) {
  Bytes bytes = idx_bytes(0x08, {2}, {1, 2});
  bytes[0] = 0x1F;
  std::string path = write(bytes);
  expect_error([&] { read_idx(path); }, {path, "bad magic 0x1F000801"});
}

TEST_P(IdxTest, UnsupportedType) {
  std::string path = write(idx_bytes(0x0D, {1}, {0, 0, 0, 0}));
  expect_error([&] { read_idx(path); }, {path, "unsupported element type 0x0D", "0x08"});
}

TEST_P(IdxTest, RankZero) {
  std::string path = write(idx_bytes(0x08, {}, {1}));
  expect_error([&] { read_idx(path); }, {path, "bad rank 0"});
}

TEST_P(IdxTest, TooManyDims) {
  std::vector<uint32_t> dims(kIdxMaxRank + 1, 1);
  std::string path = write(idx_bytes(0x08, dims, {1}));
  expect_error([&] { read_idx(path); }, {path, "bad rank 9"});
}

TEST_P(IdxTest, EmptyFile) {
  std::string path = write({});
  expect_error([&] { read_idx(path); }, {path, "truncated header", "got 0"});
}

TEST_P(IdxTest, TruncatedMagic) {
  std::string path = write({0, 0, 8});
  expect_error([&] { read_idx(path); }, {path, "truncated header: magic needs 4 bytes, got 3"});
}

TEST_P(IdxTest, TruncatedDims) {
  Bytes bytes = idx_bytes(0x08, {2, 3, 4}, {});
  bytes.resize(4 + 9);  // the third dimension is cut after one byte
  std::string path = write(bytes);
  expect_error([&] { read_idx(path); },
               {path, "truncated header: dimension sizes needs 12 bytes, got 9"});
}

TEST_P(IdxTest, TruncatedData) {
  std::string path = write(idx_bytes(0x08, {2, 5}, iota_bytes(7)));
  expect_error([&] { read_idx(path); }, {path, "expected 10 bytes of data, got 7"});
}

// A header declaring ~16 TB must fail on the short read, not try to allocate it.
TEST_P(IdxTest, HugeDeclaredSizeFailsOnShortRead) {
  std::string path = write(idx_bytes(0x08, {0xFFFFFFFF, 0xFFF}, iota_bytes(100)));
  expect_error([&] { read_idx(path); }, {path, "got 100"});
}

TEST_P(IdxTest, OverflowingDims) {
  std::string path = write(idx_bytes(0x08, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, {}));
  expect_error([&] { read_idx(path); }, {path, "overflows"});
}

// Bytes after the declared data mean the header does not describe the file: rejected.
TEST_P(IdxTest, TrailingBytes) {
  std::string path = write(idx_bytes(0x08, {2}, {1, 2, 3}));
  expect_error([&] { read_idx(path); }, {path, "trailing bytes"});
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, IdxTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "gzip" : "plain"; });

// A gzip file cut short (an interrupted download) reads as data ending early.
TEST(IdxGzip, CutStream) {
  ScratchDir dir;
  std::string path = dir.file("cut.gz");
  testing::write_file(path, idx_bytes(0x08, {4096}, iota_bytes(4096)), true);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  expect_error([&] { read_idx(path); }, {path, "truncated data: expected 4096 bytes of data"});
}

}  // namespace
}  // namespace ember::data
