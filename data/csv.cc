#include "data/csv.h"

#include <csv.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "ir/error.h"

namespace ember::data {
namespace {

// What libcsv's callbacks fill.
struct Parse {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> current;
};

void on_field(void* text, size_t len, void* data) {
  static_cast<Parse*>(data)->current.emplace_back(static_cast<const char*>(text), len);
}

void on_record(int, void* data) {
  auto* p = static_cast<Parse*>(data);
  p->records.push_back(std::move(p->current));
  p->current.clear();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("read_csv: cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw Error("read_csv: error reading " + path);
  return s.str();
}

std::vector<std::vector<std::string>> parse_records(const std::string& path,
                                                    const std::string& text, char delimiter) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
    throw Error("read_csv: csv_init failed");
  csv_set_delim(&parser, static_cast<unsigned char>(delimiter));
  Parse p;
  size_t done = csv_parse(&parser, text.data(), text.size(), on_field, on_record, &p);
  int fini = done == text.size() ? csv_fini(&parser, on_field, on_record, &p) : -1;
  int error = csv_error(&parser);
  csv_free(&parser);
  if (done != text.size() || fini != 0) {
    throw Error("read_csv: " + path + ": " + csv_strerror(error) + " after record " +
                std::to_string(p.records.size()) + " (byte " + std::to_string(done) + ")");
  }
  return std::move(p.records);
}

}  // namespace

CsvTable read_csv(const std::string& path, const CsvOptions& options) {
  CsvTable t{path, {}, parse_records(path, read_all(path), options.delimiter)};
  auto& records = t.rows;
  if (options.has_header) {
    if (records.empty()) throw Error("read_csv: " + path + " has no header row");
    t.header = std::move(records.front());
    records.erase(records.begin());
  } else if (!records.empty()) {
    for (size_t c = 0; c < records.front().size(); ++c) t.header.push_back(std::to_string(c));
  }
  const size_t first_row = options.has_header ? 2 : 1;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].size() != t.header.size()) {
      throw Error("read_csv: " + path + ": row " + std::to_string(first_row + i) + " (item " +
                  std::to_string(i) + ") has " + std::to_string(records[i].size()) +
                  " fields, the header has " + std::to_string(t.header.size()));
    }
  }
  return t;
}

CsvRow::CsvRow(const CsvTable& table, size_t item) : table_(&table), item_(item) {}

void CsvRow::fail(const std::string& name, const std::string& problem) const {
  throw Error("csv: " + table_->path + ": item " + std::to_string(item_) + ", column '" + name +
              "': " + problem);
}

const std::string& CsvRow::operator[](const std::string& name) const {
  const auto& h = table_->header;
  for (size_t c = 0; c < h.size(); ++c) {
    if (h[c] == name) return table_->rows[item_][c];
  }
  fail(name, "no such column");
}

double CsvRow::real(const std::string& name) const {
  const std::string& text = (*this)[name];
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    fail(name, "'" + text + "' is not a number");
  return v;
}

long long CsvRow::integer(const std::string& name) const {
  const std::string& text = (*this)[name];
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    fail(name, "'" + text + "' is not an integer");
  }
  return v;
}

}  // namespace ember::data
