#include "data/sqlite_dataset.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

namespace ember::data {
namespace {

std::string sql_name(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void check_split_name(const std::string& split) {
  bool ok = !split.empty();
  for (char c : split) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw Error("sqlite dataset: split name '" + split + "' is not letters, digits and '_'");
}

[[noreturn]] void fail(sqlite3* db, const std::string& what, const std::string& path) {
  throw Error("sqlite dataset: " + path + ": " + what + ": " +
              (db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
}

void exec(sqlite3* db, const std::string& sql, const std::string& path) {
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, sql, path);
}

void bind(sqlite3_stmt* st, int slot, const SqliteValue& v) {
  if (std::holds_alternative<int64_t>(v)) {
    sqlite3_bind_int64(st, slot, std::get<int64_t>(v));
  } else if (std::holds_alternative<double>(v)) {
    sqlite3_bind_double(st, slot, std::get<double>(v));
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    sqlite3_bind_text64(st, slot, s->data(), s->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  } else if (const auto* b = std::get_if<std::vector<uint8_t>>(&v)) {
    // An empty blob bound as a pointer would read back as NULL.
    if (b->empty()) {
      sqlite3_bind_zeroblob(st, slot, 0);
    } else {
      sqlite3_bind_blob64(st, slot, b->data(), b->size(), SQLITE_TRANSIENT);
    }
  } else {
    sqlite3_bind_null(st, slot);
  }
}

SqliteValue column_value(sqlite3_stmt* st, int c) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(st, c));
    case SQLITE_FLOAT:
      return sqlite3_column_double(st, c);
    case SQLITE_TEXT: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      return std::string(p, static_cast<size_t>(sqlite3_column_bytes(st, c)));
    }
    case SQLITE_BLOB: {
      const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(st, c));
      return std::vector<uint8_t>(p, p + sqlite3_column_bytes(st, c));
    }
    default:
      return std::monostate{};
  }
}

}  // namespace

// ---- SqliteRow ----

SqliteRow& SqliteRow::set(std::string column, SqliteValue value) {
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c] == column) {
      values_[c] = std::move(value);
      return *this;
    }
  }
  columns_.push_back(std::move(column));
  values_.push_back(std::move(value));
  return *this;
}

const SqliteValue& SqliteRow::find(const std::string& column, const char* type) const {
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c] == column) return values_[c];
  }
  throw Error("sqlite dataset: " + where_ + "no column '" + column + "' (" + type + " asked)");
}

template <class T>
const T& typed(const SqliteValue& v, const std::string& where, const std::string& column,
               const char* type) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw Error("sqlite dataset: " + where + "column '" + column + "' is not " + type);
}

int64_t SqliteRow::integer(const std::string& column) const {
  return typed<int64_t>(find(column, "INTEGER"), where_, column, "INTEGER");
}

double SqliteRow::real(const std::string& column) const {
  const SqliteValue& v = find(column, "REAL");
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return typed<double>(v, where_, column, "REAL");
}

const std::string& SqliteRow::text(const std::string& column) const {
  return typed<std::string>(find(column, "TEXT"), where_, column, "TEXT");
}

const std::vector<uint8_t>& SqliteRow::blob(const std::string& column) const {
  return typed<std::vector<uint8_t>>(find(column, "BLOB"), where_, column, "BLOB");
}

// ---- SqliteDatasetWriter ----

struct SqliteDatasetWriter::State {
  struct Table {
    std::vector<std::string> columns;
    sqlite3_stmt* insert = nullptr;
    int64_t next_id = 0;
  };
  std::string path, tmp;
  sqlite3* db = nullptr;
  std::map<std::string, Table> tables;
  bool finished = false;

  void close() {
    for (auto& [name, t] : tables) sqlite3_finalize(t.insert);
    tables.clear();
    sqlite3_close(db);
    db = nullptr;
  }
  Table& table(const std::string& split, const SqliteRow& row);
};

SqliteDatasetWriter::SqliteDatasetWriter(std::string path) : s_(std::make_unique<State>()) {
  s_->path = std::move(path);
  s_->tmp = s_->path + ".tmp-" + std::to_string(getpid());
  std::filesystem::remove(s_->tmp);
  if (sqlite3_open_v2(s_->tmp.c_str(), &s_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    std::string msg = s_->db != nullptr ? sqlite3_errmsg(s_->db) : "out of memory";
    s_->close();
    throw Error("SqliteDatasetWriter: cannot create " + s_->tmp + ": " + msg);
  }
  // One transaction for the whole file: nothing is visible until finish() renames it anyway.
  exec(s_->db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", s_->tmp);
}

SqliteDatasetWriter::~SqliteDatasetWriter() {
  if (s_->finished) return;
  s_->close();
  std::error_code ignored;
  std::filesystem::remove(s_->tmp, ignored);
}

SqliteDatasetWriter::State::Table& SqliteDatasetWriter::State::table(const std::string& split,
                                                                     const SqliteRow& row) {
  auto it = tables.find(split);
  if (it != tables.end()) return it->second;
  check_split_name(split);
  Table t{row.columns()};
  std::string create = "CREATE TABLE " + sql_name(split) + " (row_id INTEGER PRIMARY KEY";
  std::string insert = "INSERT INTO " + sql_name(split) + " VALUES (?";
  for (const auto& c : t.columns) {
    if (c == "row_id") throw Error("SqliteDatasetWriter: 'row_id' is the item index column");
    create += ", " + sql_name(c);
    insert += ", ?";
  }
  exec(db, create + ")", tmp);
  if (sqlite3_prepare_v2(db, (insert + ")").c_str(), -1, &t.insert, nullptr) != SQLITE_OK) {
    fail(db, "preparing the insert into " + split, tmp);
  }
  return tables.emplace(split, std::move(t)).first->second;
}

void SqliteDatasetWriter::write(const std::string& split, const SqliteRow& row) {
  if (s_->finished) throw Error("SqliteDatasetWriter: write after finish (" + s_->path + ")");
  State::Table& t = s_->table(split, row);
  if (row.columns() != t.columns) {
    throw Error("SqliteDatasetWriter: " + s_->path + ": item " + std::to_string(t.next_id) +
                " of split " + split + " has other columns than the split's first item");
  }
  sqlite3_reset(t.insert);
  sqlite3_bind_int64(t.insert, 1, t.next_id);
  for (size_t c = 0; c < row.values().size(); ++c) {
    bind(t.insert, static_cast<int>(c) + 2, row.values()[c]);
  }
  if (sqlite3_step(t.insert) != SQLITE_DONE) {
    fail(s_->db, "writing item " + std::to_string(t.next_id) + " of split " + split, s_->tmp);
  }
  ++t.next_id;
}

void SqliteDatasetWriter::finish() {
  if (s_->finished) return;
  exec(s_->db, "COMMIT", s_->tmp);
  s_->close();
  std::error_code ec;
  std::filesystem::rename(s_->tmp, s_->path, ec);
  if (ec)
    throw Error("SqliteDatasetWriter: cannot rename " + s_->tmp + " to " + s_->path + ": " +
                ec.message());
  s_->finished = true;
}

// ---- SqliteRows ----

struct SqliteRows::Connection {
  sqlite3* db = nullptr;
  sqlite3_stmt* select = nullptr;
  std::mutex mutex;  // one statement, shared by the loader's workers
  ~Connection() {
    sqlite3_finalize(select);
    sqlite3_close(db);
  }
};

SqliteRows::SqliteRows(std::string path, std::string split)
    : path_(std::move(path)), split_(std::move(split)), db_(std::make_unique<Connection>()) {
  check_split_name(split_);
  if (!std::filesystem::exists(path_)) throw Error("SqliteDataset: " + path_ + " does not exist");
  if (sqlite3_open_v2(path_.c_str(), &db_->db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    fail(db_->db, "cannot open", path_);
  }
  sqlite3_stmt* count = nullptr;
  if (sqlite3_prepare_v2(db_->db, ("SELECT COUNT(*) FROM " + sql_name(split_)).c_str(), -1, &count,
                         nullptr) != SQLITE_OK) {
    fail(db_->db, "split '" + split_ + "'", path_);
  }
  int rc = sqlite3_step(count);
  len_ = rc == SQLITE_ROW ? static_cast<size_t>(sqlite3_column_int64(count, 0)) : 0;
  sqlite3_finalize(count);
  if (rc != SQLITE_ROW) fail(db_->db, "counting split '" + split_ + "'", path_);
  const std::string select = "SELECT * FROM " + sql_name(split_) + " WHERE row_id = ?";
  if (sqlite3_prepare_v2(db_->db, select.c_str(), -1, &db_->select, nullptr) != SQLITE_OK) {
    fail(db_->db, "split '" + split_ + "'", path_);
  }
}

SqliteRows::~SqliteRows() = default;

std::optional<SqliteRow> SqliteRows::get(size_t index) const {
  if (index >= len_) return std::nullopt;
  const std::string where = path_ + ": split " + split_ + ", item " + std::to_string(index) + ": ";
  std::lock_guard lock(db_->mutex);
  sqlite3_stmt* st = db_->select;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, static_cast<int64_t>(index));
  int rc = sqlite3_step(st);
  if (rc == SQLITE_DONE) throw Error("SqliteDataset: " + where + "no row with this row_id");
  if (rc != SQLITE_ROW) fail(db_->db, "split " + split_ + ", item " + std::to_string(index), path_);
  SqliteRow row;
  for (int c = 1; c < sqlite3_column_count(st); ++c) {  // column 0 is row_id
    row.set(sqlite3_column_name(st, c), column_value(st, c));
  }
  row.set_where(where);
  return row;
}

}  // namespace ember::data
