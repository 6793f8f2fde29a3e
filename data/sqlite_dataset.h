#pragma once
// Datasets stored in SQLite files (Burn's SqliteDataset): one table per split, one row per item
// in row_id order (0, 1, 2, ...), one column per field; large fields (images, token arrays) are
// blobs. SqliteDatasetWriter makes such a file; SqliteDataset reads one split, turning each
// row into an Item through a parser.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "data/dataset.h"
#include "ir/error.h"

namespace ember::data {

// A field: NULL, INTEGER, REAL, TEXT or BLOB.
using SqliteValue =
    std::variant<std::monostate, int64_t, double, std::string, std::vector<uint8_t>>;

// One item's fields by column name, as written and as read back.
class SqliteRow {
 public:
  SqliteRow() = default;
  SqliteRow& set(std::string column, SqliteValue value);

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<SqliteValue>& values() const { return values_; }
  // The field of `column` as that type; throws ember::Error naming the column (and `where_`,
  // the file and item a reader sets) when it is missing or of another type.
  int64_t integer(const std::string& column) const;
  double real(const std::string& column) const;  // REAL, or INTEGER converted
  const std::string& text(const std::string& column) const;
  const std::vector<uint8_t>& blob(const std::string& column) const;

  void set_where(std::string where) { where_ = std::move(where); }

 private:
  const SqliteValue& find(const std::string& column, const char* type) const;
  std::vector<std::string> columns_;
  std::vector<SqliteValue> values_;
  std::string where_;
};

// Writes splits into a new file: rows go to "<path>.tmp-<pid>", renamed to `path` by finish()
// (a crash leaves no half-written dataset under the name). Each split's columns are those of its
// first row; later rows must have the same ones. Not thread-safe.
class SqliteDatasetWriter {
 public:
  explicit SqliteDatasetWriter(std::string path);
  ~SqliteDatasetWriter();  // without finish(): the temporary file is removed
  SqliteDatasetWriter(const SqliteDatasetWriter&) = delete;
  SqliteDatasetWriter& operator=(const SqliteDatasetWriter&) = delete;

  // Appends `row` as the next item of `split` (a table name: letters, digits, '_').
  void write(const std::string& split, const SqliteRow& row);
  // Commits and renames the file into place; replaces an existing file.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The rows of one split as a Dataset of raw rows. Thread-safe: readers share one read-only
// connection under a mutex.
class SqliteRows : public Dataset<SqliteRow> {
 public:
  // Throws ember::Error naming the file when it is missing or not a database, and the split
  // when the file has no such table.
  SqliteRows(std::string path, std::string split);
  ~SqliteRows() override;

  std::optional<SqliteRow> get(size_t index) const override;
  size_t len() const override { return len_; }
  const std::string& path() const { return path_; }

 private:
  struct Connection;
  std::string path_, split_;
  std::unique_ptr<Connection> db_;
  size_t len_ = 0;
};

// Items parsed from the rows of one split.
template <class Item>
class SqliteDataset : public Dataset<Item> {
 public:
  using Parser = std::function<Item(const SqliteRow&)>;
  SqliteDataset(std::string path, std::string split, Parser parse)
      : rows_(std::make_shared<SqliteRows>(std::move(path), std::move(split))),
        parse_(std::move(parse)) {}

  std::optional<Item> get(size_t index) const override {
    std::optional<SqliteRow> row = rows_->get(index);
    if (!row) return std::nullopt;
    return parse_(*row);
  }
  size_t len() const override { return rows_->len(); }

 private:
  std::shared_ptr<const SqliteRows> rows_;
  Parser parse_;
};

}  // namespace ember::data
