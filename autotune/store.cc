#include "autotune/store.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

namespace ember::autotune {
namespace {

namespace fs = std::filesystem;

// Tables carry the schema version in their names, so a newer Ember's tables in the same file are
// left alone instead of being misread or migrated away under an older one.
constexpr int kSchemaVersion = 1;
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kCreateSchema = R"sql(
  CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER);
  CREATE TABLE IF NOT EXISTS autotune_winners_v1(
    key TEXT PRIMARY KEY, family TEXT, winner TEXT, winner_ms REAL, created INTEGER);
  CREATE TABLE IF NOT EXISTS autotune_candidates_v1(
    key TEXT, config TEXT, time_ms REAL, status TEXT, PRIMARY KEY(key, config));
)sql";

// Every SQLite failure inside the store becomes this; the public methods catch it and fall back
// to memory, so no caller ever sees it.
struct SqlError : std::runtime_error {
  explicit SqlError(const std::string& why, int code = SQLITE_ERROR)
      : std::runtime_error(why), code(code) {}
  bool busy() const { return (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED; }
  int code;
};

void exec(sqlite3* db, const char* sql) {
  char* message = nullptr;
  if (int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message); rc != SQLITE_OK) {
    std::string why = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw SqlError(why, rc);
  }
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail();
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    return check(
        sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT));
  }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }

  // True while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail();
    return false;
  }
  void run() {
    while (step()) {
    }
    sqlite3_reset(stmt_);
  }

  std::string text(int col) {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, col)) : std::string();
  }
  // SQLite stores NaN as NULL; either way the time is unknown, which the store spells -1.
  double real(int col) {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL ? -1 : sqlite3_column_double(stmt_, col);
  }
  int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) fail();
    return *this;
  }
  [[noreturn]] void fail() { throw SqlError(sqlite3_errmsg(db_), sqlite3_extended_errcode(db_)); }

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Rolled back unless committed. Writers take the lock up front (IMMEDIATE): a deferred
// transaction that later upgrades to a write can fail at once with SQLITE_BUSY in WAL mode,
// without waiting for the busy timeout.
class Transaction {
 public:
  Transaction(sqlite3* db, bool write) : db_(db) { exec(db, write ? "BEGIN IMMEDIATE" : "BEGIN"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

// SQLite's busy handler does not cover every lock conflict: switching a new database to WAL while
// another process opens it fails at once with SQLITE_BUSY, and so can that process's next
// transaction. Each operation is one transaction (rolled back when it throws), so it is retried
// until the busy timeout has passed.
template <typename F>
auto retry_busy(F&& f) -> decltype(f()) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 1;; ++attempt) {
    try {
      return f();
    } catch (const SqlError& e) {
      if (!e.busy() || std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(attempt, 20)));
  }
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

int64_t now_unix() { return static_cast<int64_t>(std::time(nullptr)); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void print_warning(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "ember: autotune cache %s unusable (%s); using an in-memory cache\n",
               path.c_str(), why.c_str());
}

}  // namespace

struct Store::Impl {
  std::string path;
  std::string warning;
  sqlite3* db = nullptr;                // null once the store lives in memory
  std::map<std::string, Entry> memory;  // the entries while db is null
  std::mutex mutex;
  bool announce = false;  // the process-wide store prints its warning when it falls back

  void open();
  void configure();
  void close();
  void fall_back(const std::string& why);
  bool move_aside(const std::string& why);

  std::optional<Entry> db_lookup(const std::string& key);
  void db_record(const Entry& e);
  std::vector<Entry> db_list();
  int db_clear(const std::string& prefix);

  int memory_clear(const std::string& prefix);

  // Runs `on_db` while the database works, else (or once it fails) `on_memory`.
  template <typename OnDb, typename OnMemory>
  auto run(OnDb&& on_db, OnMemory&& on_memory) -> decltype(on_memory()) {
    std::lock_guard lock(mutex);
    if (db) {
      try {
        return retry_busy(on_db);
      } catch (const std::exception& e) {
        fall_back(e.what());
      }
    }
    return on_memory();
  }
};

void Store::Impl::open() {
  if (path.empty()) return fall_back("no cache path");
  fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) return fall_back("cannot create directory " + dir.string() + ": " + ec.message());
  for (int attempt = 0; attempt < 2; ++attempt) {
    int rc =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) return fall_back(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    try {
      // A file without write permission opens read-only without an error; writes would fail
      // later.
      if (sqlite3_db_readonly(db, "main") == 1) throw SqlError("read-only database file");
      sqlite3_busy_timeout(db, kBusyTimeoutMs);
      retry_busy([this] { configure(); });
      return;
    } catch (const std::exception& e) {
      int code = sqlite3_errcode(db) & 0xff;
      if (attempt == 0 && (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) && move_aside(e.what()))
        continue;  // a damaged file is set aside once and the cache rebuilt in its place
      return fall_back(e.what());
    }
  }
}

// Moves a damaged database (and its WAL files) to <path>.damaged so that a fresh one replaces
// it: a cache only costs retuning, and keeping the damaged file lets someone look at it.
bool Store::Impl::move_aside(const std::string& why) {
  close();
  std::error_code ec;
  fs::path damaged = path + ".damaged";
  fs::rename(path, damaged, ec);
  if (ec) return false;
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix, ec);
  std::fprintf(stderr, "ember: autotune cache %s was damaged (%s); moved to %s and rebuilt\n",
               path.c_str(), why.c_str(), damaged.c_str());
  return true;
}

void Store::Impl::configure() {
  // The first statement reads the header: garbage fails here with "file is not a database".
  exec(db, "PRAGMA journal_mode=WAL");
  // In WAL mode NORMAL can lose the last commits on power loss but never corrupts: right for
  // a cache, and it saves an fsync per record.
  exec(db, "PRAGMA synchronous=NORMAL");
  Statement existing(db,
                     "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                     "('meta', 'autotune_winners_v1', 'autotune_candidates_v1')");
  existing.step();
  if (existing.integer(0) != 3) {
    Transaction t(db, true);
    exec(db, kCreateSchema);
    // A newer Ember's version number is kept: its tables are the ones it names.
    Statement(db, "INSERT OR IGNORE INTO meta(name, value) VALUES('schema_version', ?1)")
        .bind(1, int64_t{kSchemaVersion})
        .run();
    t.commit();
  }
  // Reads the tables' first pages, so a truncated file fails now rather than on first use.
  Statement(db, "SELECT 1 FROM autotune_winners_v1 LIMIT 1").run();
  Statement(db, "SELECT 1 FROM autotune_candidates_v1 LIMIT 1").run();
}

void Store::Impl::close() {
  sqlite3_close_v2(db);
  db = nullptr;
}

void Store::Impl::fall_back(const std::string& why) {
  if (db) {
    // What can still be read (a read-only file) keeps serving; the rest is retuned.
    try {
      for (Entry& e : db_list()) memory[e.key] = std::move(e);
    } catch (const std::exception&) {
    }
    close();
  }
  warning = why;
  if (announce) print_warning(path, why);
}

std::optional<Entry> Store::Impl::db_lookup(const std::string& key) {
  Transaction t(db, false);  // one snapshot for the winner and its candidates
  Statement w(db,
              "SELECT family, winner, winner_ms, created FROM autotune_winners_v1 WHERE key = ?1");
  w.bind(1, key);
  if (!w.step()) return std::nullopt;
  Entry e{key, w.text(0), w.text(1), w.real(2), {}, w.integer(3)};
  Statement c(db,
              "SELECT config, time_ms, status FROM autotune_candidates_v1 WHERE key = ?1 "
              "ORDER BY rowid");
  c.bind(1, key);
  while (c.step()) e.candidates.push_back({c.text(0), c.real(1), c.text(2)});
  t.commit();
  return e;
}

void Store::Impl::db_record(const Entry& e) {
  Transaction t(db, true);
  Statement(db, "DELETE FROM autotune_candidates_v1 WHERE key = ?1").bind(1, e.key).run();
  Statement(db,
            "INSERT OR REPLACE INTO autotune_winners_v1(key, family, winner, winner_ms, created) "
            "VALUES(?1, ?2, ?3, ?4, ?5)")
      .bind(1, e.key)
      .bind(2, e.family)
      .bind(3, e.winner)
      .bind(4, e.winner_ms)
      .bind(5, e.created_unix)
      .run();
  Statement insert(db,
                   "INSERT OR REPLACE INTO autotune_candidates_v1(key, config, time_ms, status) "
                   "VALUES(?1, ?2, ?3, ?4)");
  for (const Candidate& c : e.candidates) {
    insert.bind(1, e.key).bind(2, c.config).bind(3, c.time_ms).bind(4, c.status).run();
  }
  t.commit();
}

std::vector<Entry> Store::Impl::db_list() {
  Transaction t(db, false);
  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
  Statement w(db,
              "SELECT key, family, winner, winner_ms, created FROM autotune_winners_v1 "
              "ORDER BY key");
  while (w.step()) {
    index[w.text(0)] = entries.size();
    entries.push_back({w.text(0), w.text(1), w.text(2), w.real(3), {}, w.integer(4)});
  }
  Statement c(db, "SELECT key, config, time_ms, status FROM autotune_candidates_v1 ORDER BY rowid");
  while (c.step()) {
    auto it = index.find(c.text(0));
    if (it != index.end())
      entries[it->second].candidates.push_back({c.text(1), c.real(2), c.text(3)});
  }
  t.commit();
  return entries;
}

int Store::Impl::db_clear(const std::string& prefix) {
  Transaction t(db, true);
  // substr rather than LIKE: keys may hold '%' and '_'.
  Statement(db, "DELETE FROM autotune_candidates_v1 WHERE substr(key, 1, length(?1)) = ?1")
      .bind(1, prefix)
      .run();
  Statement(db, "DELETE FROM autotune_winners_v1 WHERE substr(key, 1, length(?1)) = ?1")
      .bind(1, prefix)
      .run();
  int removed = sqlite3_changes(db);
  t.commit();
  return removed;
}

int Store::Impl::memory_clear(const std::string& prefix) {
  int removed = 0;
  for (auto it = memory.lower_bound(prefix);
       it != memory.end() && starts_with(it->first, prefix);) {
    it = memory.erase(it);
    ++removed;
  }
  return removed;
}

Store::Store(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->open();
}

Store::~Store() { impl_->close(); }

std::optional<Entry> Store::lookup(const std::string& key) {
  return impl_->run([&] { return impl_->db_lookup(key); },
                    [&]() -> std::optional<Entry> {
                      auto it = impl_->memory.find(key);
                      if (it == impl_->memory.end()) return std::nullopt;
                      return it->second;
                    });
}

void Store::record(const Entry& e) {
  Entry stamped = e;
  if (stamped.created_unix == 0) stamped.created_unix = now_unix();
  impl_->run([&] { impl_->db_record(stamped); }, [&] { impl_->memory[stamped.key] = stamped; });
}

std::vector<Entry> Store::list() {
  return impl_->run([&] { return impl_->db_list(); },
                    [&] {
                      std::vector<Entry> entries;
                      for (const auto& [key, e] : impl_->memory) entries.push_back(e);
                      return entries;
                    });
}

int Store::clear(const std::string& prefix) {
  return impl_->run([&] { return impl_->db_clear(prefix); },
                    [&] { return impl_->memory_clear(prefix); });
}

bool Store::persistent() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->db != nullptr;
}

const std::string& Store::warning() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->warning;
}

const std::string& Store::path() const { return impl_->path; }

std::string default_store_path() {
  // The kernel cache's directory rule (jit/compile/compile.cc), which this layer cannot include.
  std::string dir = env("EMBER_CACHE_DIR");
  if (dir.empty() && !env("XDG_CACHE_HOME").empty()) dir = env("XDG_CACHE_HOME") + "/ember";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.cache/ember";
  if (dir.empty()) dir = "/tmp/ember-cache";
  return dir + "/autotune.sqlite";
}

Store& process_store() {
  static std::mutex mutex;
  // Stores replaced after a change of EMBER_CACHE_DIR are closed but kept, so references handed
  // out earlier (possibly in use on other threads) stay valid; they serve from memory.
  static std::vector<std::unique_ptr<Store>> stores;
  std::lock_guard lock(mutex);
  std::string path = default_store_path();
  if (!stores.empty() && stores.back()->path() == path) return *stores.back();
  if (!stores.empty()) {
    Store::Impl& old = *stores.back()->impl_;
    std::lock_guard old_lock(old.mutex);
    old.announce = false;
    old.fall_back("replaced after the cache directory changed");
  }
  stores.push_back(std::make_unique<Store>(path));
  Store::Impl& impl = *stores.back()->impl_;
  impl.announce = true;
  if (!impl.warning.empty()) print_warning(path, impl.warning);
  return *stores.back();
}

std::string to_json(const std::vector<Entry>& entries) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Entry& e : entries) {
    nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
    for (const Candidate& c : e.candidates) {
      candidates.push_back({{"config", c.config}, {"time_ms", c.time_ms}, {"status", c.status}});
    }
    out.push_back({{"key", e.key},
                   {"family", e.family},
                   {"winner", e.winner},
                   {"winner_ms", e.winner_ms},
                   {"created", e.created_unix},
                   {"candidates", std::move(candidates)}});
  }
  return out.dump(2);
}

}  // namespace ember::autotune
