#pragma once
// The autotune cache: for each tuning key, the winning configuration and every candidate's
// time, in SQLite under EMBER_CACHE_DIR (WAL, busy timeout, versioned tables), shared by every
// process on the machine. A database that cannot be opened, read or written degrades to an
// in-memory cache with one warning: never a crash, never a wrong kernel.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember::autotune {

struct Candidate {
  std::string config;   // e.g. "block=8"
  double time_ms = -1;  // median device time; < 0 when it failed
  std::string status;   // "ok", "compile error", "wrong result", "eliminated", ...
};

struct Entry {
  std::string key;     // TuneKey::to_string()
  std::string family;  // "matmul", "row", "pointwise"
  std::string winner;  // a Candidate::config
  double winner_ms = -1;
  std::vector<Candidate> candidates;
  int64_t created_unix = 0;
};

class Store {
 public:
  // Opens (creating) the database at `path`; on failure the store is in-memory and `warning()`
  // says why (printed once by the process-wide store).
  explicit Store(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  std::optional<Entry> lookup(const std::string& key);
  // Inserts or replaces the entry for e.key (winner and candidate table in one transaction).
  void record(const Entry& e);
  std::vector<Entry> list();
  // Removes every entry (or those whose key starts with `prefix`); returns how many.
  int clear(const std::string& prefix = "");

  bool persistent() const;
  const std::string& warning() const;
  const std::string& path() const;

 private:
  friend Store& process_store();  // announces the warnings of the store it hands out
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The database file: $EMBER_CACHE_DIR/autotune.sqlite (default cache dir as the kernel cache).
std::string default_store_path();
// The process-wide store at default_store_path(), reopened when EMBER_CACHE_DIR changes.
Store& process_store();

// Entries as JSON (nlohmann::json array), for the ember-autotune CLI.
std::string to_json(const std::vector<Entry>& entries);

}  // namespace ember::autotune
