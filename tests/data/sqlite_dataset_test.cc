// SqliteDatasetWriter and SqliteDataset: items written as rows (large fields as blobs) read back
// by index from several threads, the temporary file and its rename, and the errors a missing
// file, a file that is not a database, a missing split and a wrong column give.
#include "data/sqlite_dataset.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using testing::expect_error;
using testing::ScratchDir;

struct Sample {
  int64_t label = 0;
  double weight = 0;
  std::string text;
  std::vector<uint8_t> pixels;
};

SqliteRow to_row(const Sample& s) {
  SqliteRow r;
  r.set("label", s.label).set("weight", s.weight).set("text", s.text).set("pixels", s.pixels);
  return r;
}

Sample from_row(const SqliteRow& r) {
  return {r.integer("label"), r.real("weight"), r.text("text"), r.blob("pixels")};
}

Sample sample(int i) {
  std::vector<uint8_t> pixels(static_cast<size_t>(i * 100));
  for (size_t p = 0; p < pixels.size(); ++p) pixels[p] = static_cast<uint8_t>(p * i + 1);
  return {i % 3, 0.5 * i, "item " + std::to_string(i), pixels};
}

std::string write_db(const ScratchDir& dir, int train, int test) {
  std::string path = dir.file("set.db");
  SqliteDatasetWriter w(path);
  for (int i = 0; i < train; ++i) w.write("train", to_row(sample(i)));
  for (int i = 0; i < test; ++i) w.write("test", to_row(sample(1000 + i)));
  EXPECT_FALSE(std::filesystem::exists(path));  // only the temporary file so far
  w.finish();
  return path;
}

TEST(SqliteDataset, RoundTripsItemsBySplit) {
  ScratchDir dir;
  std::string path = write_db(dir, 20, 3);
  SqliteDataset<Sample> train(path, "train", from_row), test(path, "test", from_row);
  ASSERT_EQ(train.len(), 20u);
  ASSERT_EQ(test.len(), 3u);
  for (size_t i : {0, 7, 19}) {
    Sample got = *train.get(i), want = sample(static_cast<int>(i));
    EXPECT_EQ(got.label, want.label);
    EXPECT_EQ(got.weight, want.weight);
    EXPECT_EQ(got.text, want.text);
    EXPECT_EQ(got.pixels, want.pixels) << i;  // item 0's empty blob stays a blob
  }
  EXPECT_EQ(test.get(2)->text, "item 1002");
  EXPECT_FALSE(train.get(20));
  // Only the renamed file is left, and the pixels are stored as BLOBs.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT typeof(pixels) FROM train WHERE row_id = 5", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "blob");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(SqliteDataset, ReadsFromSeveralThreads) {
  ScratchDir dir;
  std::string path = write_db(dir, 64, 0);
  SqliteDataset<Sample> d(path, "train", from_row);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 64; i += 4) {
        if (d.get(i)->pixels != sample(i).pixels) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(SqliteDataset, AbandonedWriterLeavesNothing) {
  ScratchDir dir;
  {
    SqliteDatasetWriter w(dir.file("x.db"));
    w.write("train", to_row(sample(1)));
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 0);
}

TEST(SqliteDataset, Errors) {
  ScratchDir dir;
  std::string path = write_db(dir, 2, 0);
  expect_error([&] { SqliteDataset<Sample>(dir.file("none.db"), "train", from_row); },
               {"none.db", "does not exist"});
  std::ofstream(dir.file("junk.db")) << std::string(4096, 'j');
  expect_error([&] { SqliteDataset<Sample>(dir.file("junk.db"), "train", from_row); },
               {"junk.db", "not a database"});
  expect_error([&] { SqliteDataset<Sample>(path, "valid", from_row); },
               {path, "valid", "no such table"});
  SqliteDataset<int64_t> wrong(path, "train", [](const SqliteRow& r) { return r.integer("text"); });
  expect_error([&] { wrong.get(1); }, {path, "item 1", "'text'", "not INTEGER"});
  SqliteDataset<int64_t> missing(path, "train",
                                 [](const SqliteRow& r) { return r.integer("age"); });
  expect_error([&] { missing.get(0); }, {path, "item 0", "no column 'age'"});
  SqliteDatasetWriter w(dir.file("other.db"));
  w.write("train", to_row(sample(1)));
  SqliteRow fewer;
  fewer.set("label", int64_t{1});
  expect_error([&] { w.write("train", fewer); }, {"item 1", "other columns"});
  expect_error([&] { w.write("bad name", fewer); }, {"'bad name'"});
}

}  // namespace
}  // namespace ember::data
