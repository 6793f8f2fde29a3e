#pragma once
// CSV files (RFC 4180: quoted fields, embedded delimiters and line breaks) read through libcsv
// into rows of text fields, and the row view item parsers use: fields by column name, converted
// with errors that name the file, the row and the column.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ember::data {

struct CsvOptions {
  char delimiter = ',';
  bool has_header = true;  // without one, columns are named "0", "1", ...
};

struct CsvTable {
  std::string path;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as the header
};

// Reads the whole file. Throws ember::Error naming the file when it cannot be read or parsed,
// and naming the row (1-based line of records, the header being row 1) and item (0-based data
// row) when a row has fewer or more fields than the header.
CsvTable read_csv(const std::string& path, const CsvOptions& options = {});

// One data row of a CsvTable, as an item parser sees it.
class CsvRow {
 public:
  CsvRow(const CsvTable& table, size_t item);
  // The field of column `name`; throws ember::Error when the file has no such column.
  const std::string& operator[](const std::string& name) const;
  // The field converted (the whole field must convert); throws ember::Error naming the file,
  // item, column and text when it does not.
  double real(const std::string& name) const;
  long long integer(const std::string& name) const;
  size_t item() const { return item_; }
  const std::string& path() const { return table_->path; }

 private:
  [[noreturn]] void fail(const std::string& name, const std::string& problem) const;
  const CsvTable* table_;
  size_t item_;
};

}  // namespace ember::data
