// InMemDataset from items, from CSV files (quoting, a header, custom delimiters, and the errors
// a short row, a bad number or a missing file give) and from JSON-rows files, written here.
#include "data/in_memory.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using testing::expect_error;
using testing::ScratchDir;

struct House {
  std::string name;
  double price = 0;
  long long rooms = 0;
};

void from_json(const nlohmann::json& j, House& h) {
  j.at("name").get_to(h.name);
  j.at("price").get_to(h.price);
  j.at("rooms").get_to(h.rooms);
}

House parse_house(const CsvRow& row) {
  return {row["name"], row.real("price"), row.integer("rooms")};
}

std::string write_text(const ScratchDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

TEST(InMemDataset, HoldsItsItems) {
  InMemDataset<std::string> d({"a", "b"});
  EXPECT_EQ(d.len(), 2u);
  EXPECT_EQ(*d.get(1), "b");
  EXPECT_FALSE(d.get(2));
}

TEST(InMemDataset, FromCsv) {
  ScratchDir dir;
  std::string path = write_text(dir, "houses.csv",
                                "name,price,rooms\n"
                                "cottage,120000.5,3\n"
                                "\"flat, top floor\",99000,2\n"
                                "\"the \"\"big\"\" one\",1e6,12\n");
  auto d = InMemDataset<House>::from_csv(path, parse_house);
  ASSERT_EQ(d.len(), 3u);
  EXPECT_EQ(d.get(0)->name, "cottage");
  EXPECT_DOUBLE_EQ(d.get(0)->price, 120000.5);
  EXPECT_EQ(d.get(0)->rooms, 3);
  EXPECT_EQ(d.get(1)->name, "flat, top floor");
  EXPECT_EQ(d.get(2)->name, "the \"big\" one");
  EXPECT_DOUBLE_EQ(d.get(2)->price, 1e6);
}

TEST(InMemDataset, FromCsvWithoutHeaderAndOtherDelimiter) {
  ScratchDir dir;
  std::string path = write_text(dir, "t.tsv", "a\t1\nb\t2\n");
  auto d = InMemDataset<std::pair<std::string, long long>>::from_csv(
      path, [](const CsvRow& r) { return std::make_pair(r["0"], r.integer("1")); },
      CsvOptions{'\t', false});
  ASSERT_EQ(d.len(), 2u);
  EXPECT_EQ(*d.get(1), std::make_pair(std::string("b"), 2LL));
}

TEST(InMemDataset, CsvErrorsNameTheFileAndItem) {
  ScratchDir dir;
  std::string short_row = write_text(dir, "short.csv", "name,price,rooms\na,1,2\nb,3\n");
  expect_error([&] { read_csv(short_row); }, {short_row, "row 3", "item 1", "2 fields", "has 3"});
  std::string bad_number = write_text(dir, "bad.csv", "name,price,rooms\na,1,2\nb,cheap,2\n");
  expect_error([&] { InMemDataset<House>::from_csv(bad_number, parse_house); },
               {bad_number, "item 1", "price", "'cheap' is not a number"});
  std::string no_column = write_text(dir, "cols.csv", "name,cost,rooms\na,1,2\n");
  expect_error([&] { InMemDataset<House>::from_csv(no_column, parse_house); },
               {no_column, "item 0", "'price'", "no such column"});
  // A parser's own exception ("a" is no int: std::invalid_argument) names the file and item.
  expect_error(
      [&] {
        InMemDataset<int>::from_csv(no_column,
                                    [](const CsvRow& r) { return std::stoi(r["name"]); });
      },
      {no_column, "item 0"});
  expect_error([&] { read_csv(dir.file("missing.csv")); }, {"cannot open", "missing.csv"});
  std::string open_quote = write_text(dir, "quote.csv", "a,b\n\"x,1\n");
  expect_error([&] { read_csv(open_quote); }, {open_quote});
}

TEST(InMemDataset, FromJsonRows) {
  ScratchDir dir;
  std::string path = write_text(dir, "houses.jsonl",
                                "{\"name\": \"cottage\", \"price\": 1.5, \"rooms\": 3}\n"
                                "\n"
                                "{\"name\": \"flat\", \"price\": 2, \"rooms\": 1}\n");
  auto d = InMemDataset<House>::from_json_rows(path);
  ASSERT_EQ(d.len(), 2u);
  EXPECT_EQ(d.get(1)->name, "flat");
  EXPECT_DOUBLE_EQ(d.get(0)->price, 1.5);
  std::string bad = write_text(dir, "bad.jsonl",
                               "{\"name\": \"a\", \"price\": 1, \"rooms\": 1}\n"
                               "{\"name\": \"b\", \"price\": 1}\n");
  expect_error([&] { InMemDataset<House>::from_json_rows(bad); },
               {bad, "line 2", "item 1", "rooms"});
  std::string broken = write_text(dir, "broken.jsonl", "{\"name\": \n");
  expect_error([&] { InMemDataset<House>::from_json_rows(broken); }, {broken, "line 1"});
  expect_error([&] { InMemDataset<House>::from_json_rows(dir.file("none.jsonl")); },
               {"cannot open", "none.jsonl"});
}

}  // namespace
}  // namespace ember::data
