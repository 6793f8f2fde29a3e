// The autotune cache: entries round-trip, persist across processes, survive concurrent writers,
// and a database that cannot be used degrades to memory with one warning.
#include "autotune/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ember::autotune {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (fs::temp_directory_path() / "ember-autotune-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string db() const { return file("autotune.sqlite"); }

 private:
  fs::path path_;
};

// Sets (or unsets, for nullopt) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

Entry make_entry(const std::string& key, const std::string& winner = "block=4", int n = 3) {
  Entry e{key, "matmul", winner, 1.25, {}, 1700000000};
  for (int i = 0; i < n; ++i) {
    e.candidates.push_back(
        {"block=" + std::to_string(1 << i), 1.25 + i, i == 0 ? "ok" : "eliminated"});
  }
  return e;
}

void expect_same(const Entry& got, const Entry& want) {
  EXPECT_EQ(got.key, want.key);
  EXPECT_EQ(got.family, want.family);
  EXPECT_EQ(got.winner, want.winner);
  EXPECT_DOUBLE_EQ(got.winner_ms, want.winner_ms);
  EXPECT_EQ(got.created_unix, want.created_unix);
  ASSERT_EQ(got.candidates.size(), want.candidates.size());
  for (size_t i = 0; i < want.candidates.size(); ++i) {
    EXPECT_EQ(got.candidates[i].config, want.candidates[i].config) << i;
    EXPECT_DOUBLE_EQ(got.candidates[i].time_ms, want.candidates[i].time_ms) << i;
    EXPECT_EQ(got.candidates[i].status, want.candidates[i].status) << i;
  }
}

// Runs `body` in a forked child; returns its exit status (the child's own store, opened after
// the fork, so no SQLite connection crosses it).
pid_t spawn(const std::function<int()>& body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A store that fell back to memory still answers, from memory.
void expect_works_in_memory(Store& store) {
  EXPECT_FALSE(store.persistent());
  EXPECT_FALSE(store.warning().empty());
  Entry e = make_entry("mem|1");
  store.record(e);
  std::optional<Entry> got = store.lookup("mem|1");
  ASSERT_TRUE(got.has_value());
  expect_same(*got, e);
  EXPECT_EQ(store.list().size(), 1u);
  EXPECT_EQ(store.clear("mem|"), 1);
  EXPECT_FALSE(store.lookup("mem|1").has_value());
}

// Runs `body` as an unprivileged user, so that permission bits hold: in this process when it is
// not root; as root (CI runs as root, and root ignores permission bits) in a forked child that
// drops to uid/gid 65534 ("nobody") after `dir`'s files are given to it. The child's failures
// print there and fail the test through its exit status.
void as_unprivileged_user(const std::string& dir, const std::function<void()>& body) {
  if (geteuid() != 0) {
    body();
    return;
  }
  const uid_t nobody = 65534;
  ASSERT_EQ(lchown(dir.c_str(), nobody, nobody), 0) << dir;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    ASSERT_EQ(lchown(f.path().c_str(), nobody, nobody), 0) << f.path();
  ASSERT_FALSE(::testing::Test::HasFailure());
  std::fflush(stdout);
  pid_t pid = spawn([&] {
    if (setgid(nobody) != 0 || setuid(nobody) != 0) {
      std::perror("dropping root for a permission test");
      return 2;
    }
    body();
    std::fflush(stdout);
    return ::testing::Test::HasFailure() ? 1 : 0;
  });
  EXPECT_EQ(wait_for(pid), 0) << "the unprivileged run failed (its messages are above)";
}

TEST(AutotuneStore, RecordThenLookup) {
  ScratchDir dir;
  Store store(dir.db());
  EXPECT_TRUE(store.persistent()) << store.warning();
  EXPECT_EQ(store.warning(), "");
  EXPECT_EQ(store.path(), dir.db());
  EXPECT_FALSE(store.lookup("matmul|x").has_value());
  Entry e = make_entry("matmul|x");
  e.candidates.push_back({"block=8", -1, "compile error"});
  store.record(e);
  std::optional<Entry> got = store.lookup("matmul|x");
  ASSERT_TRUE(got.has_value());
  expect_same(*got, e);
  EXPECT_FALSE(store.lookup("matmul|y").has_value());
}

TEST(AutotuneStore, CreatesMissingDirectoriesAndStampsCreation) {
  ScratchDir dir;
  Store store(dir.file("a/b/c/autotune.sqlite"));
  ASSERT_TRUE(store.persistent()) << store.warning();
  Entry e = make_entry("k");
  e.created_unix = 0;
  int64_t before = static_cast<int64_t>(std::time(nullptr));
  store.record(e);
  std::optional<Entry> got = store.lookup("k");
  ASSERT_TRUE(got.has_value());
  EXPECT_GE(got->created_unix, before);
  EXPECT_LE(got->created_unix, before + 60);
}

TEST(AutotuneStore, NanTimeReadsAsFailed) {
  ScratchDir dir;
  Store store(dir.db());
  Entry e = make_entry("k", "", 1);
  e.winner_ms = -1;
  e.candidates[0].time_ms = std::nan("");
  store.record(e);
  std::optional<Entry> got = store.lookup("k");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->winner, "");
  EXPECT_EQ(got->winner_ms, -1);
  EXPECT_EQ(got->candidates[0].time_ms, -1);
}

TEST(AutotuneStore, RecordReplacesEntryAndItsCandidates) {
  ScratchDir dir;
  Store store(dir.db());
  store.record(make_entry("k", "block=4", 4));
  Entry replacement = make_entry("k", "block=1", 1);
  replacement.family = "row";
  replacement.winner_ms = 0.5;
  store.record(replacement);
  std::optional<Entry> got = store.lookup("k");
  ASSERT_TRUE(got.has_value());
  expect_same(*got, replacement);
  EXPECT_EQ(store.list().size(), 1u);
}

TEST(AutotuneStore, ListAndClearByPrefix) {
  ScratchDir dir;
  Store store(dir.db());
  for (const char* key : {"row|b", "matmul|b", "matmul|a", "a_b", "axb", "a%c"}) {
    store.record(make_entry(key));
  }
  std::vector<Entry> all = store.list();
  ASSERT_EQ(all.size(), 6u);
  std::vector<std::string> keys;
  for (const Entry& e : all) {
    keys.push_back(e.key);
    EXPECT_EQ(e.candidates.size(), 3u) << e.key;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"a%c", "a_b", "axb", "matmul|a", "matmul|b", "row|b"}));
  EXPECT_EQ(store.clear("matmul|"), 2);
  EXPECT_FALSE(store.lookup("matmul|a").has_value());
  EXPECT_TRUE(store.lookup("row|b").has_value());
  // '_' and '%' are characters of the prefix, not patterns.
  EXPECT_EQ(store.clear("a_"), 1);
  EXPECT_EQ(store.clear("a%"), 1);
  EXPECT_TRUE(store.lookup("axb").has_value());
  EXPECT_EQ(store.clear("nothing"), 0);
  EXPECT_EQ(store.clear(), 2);
  EXPECT_TRUE(store.list().empty());
}

TEST(AutotuneStore, PersistsAcrossProcesses) {
  ScratchDir dir;
  Store early(dir.db());  // open before the child writes: it must see the child's entry
  ASSERT_TRUE(early.persistent()) << early.warning();
  Entry e = make_entry("matmul|child");
  pid_t child = spawn([&] {
    Store store(dir.db());
    store.record(e);
    return store.persistent() && store.warning().empty() ? 0 : 1;
  });
  ASSERT_EQ(wait_for(child), 0);
  std::optional<Entry> seen = early.lookup("matmul|child");
  ASSERT_TRUE(seen.has_value());
  expect_same(*seen, e);
  Store later(dir.db());
  std::optional<Entry> got = later.lookup("matmul|child");
  ASSERT_TRUE(got.has_value());
  expect_same(*got, e);
}

// Two processes write at once: distinct keys, and the same keys (last writer wins, but each
// entry is one writer's whole: winner and candidates are recorded in one transaction).
TEST(AutotuneStore, ConcurrentProcesses) {
  ScratchDir dir;
  constexpr int kEntries = 200;
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    children.push_back(spawn([&, c] {
      close(start[1]);
      char byte;
      if (read(start[0], &byte, 1) != 0) return 3;  // wait for the parent to close the pipe
      Store store(dir.db());
      std::string tag = "child" + std::to_string(c);
      for (int i = 0; i < kEntries; ++i) {
        Entry mine = make_entry(tag + "|" + std::to_string(i), tag, 2);
        store.record(mine);
        Entry shared = make_entry("shared|" + std::to_string(i), tag, 0);
        for (int k = 0; k < 3; ++k)
          shared.candidates.push_back({tag + "/" + std::to_string(k), 1, "ok"});
        store.record(shared);
      }
      if (!store.persistent() || !store.warning().empty()) {
        std::fprintf(stderr, "%s: %s\n", tag.c_str(), store.warning().c_str());
        return 1;
      }
      return store.list().size() >= static_cast<size_t>(kEntries) ? 0 : 2;
    }));
  }
  close(start[0]);
  close(start[1]);
  for (pid_t pid : children) EXPECT_EQ(wait_for(pid), 0);

  Store store(dir.db());
  ASSERT_TRUE(store.persistent()) << store.warning();
  EXPECT_EQ(store.list().size(), 3u * kEntries);
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < kEntries; ++i) {
      std::string key = "child" + std::to_string(c) + "|" + std::to_string(i);
      std::optional<Entry> got = store.lookup(key);
      ASSERT_TRUE(got.has_value()) << key;
      EXPECT_EQ(got->candidates.size(), 2u) << key;
    }
  }
  for (int i = 0; i < kEntries; ++i) {
    std::optional<Entry> got = store.lookup("shared|" + std::to_string(i));
    ASSERT_TRUE(got.has_value()) << i;
    ASSERT_EQ(got->candidates.size(), 3u) << i;
    for (const Candidate& cand : got->candidates) {
      EXPECT_EQ(cand.config.rfind(got->winner + "/", 0), 0u)
          << cand.config << " in " << got->winner;
    }
  }
}

TEST(AutotuneStore, ThreadsShareOneStore) {
  ScratchDir dir;
  Store store(dir.db());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < 25; ++i) {
        std::string key = std::to_string(t) + "|" + std::to_string(i);
        store.record(make_entry(key));
        EXPECT_TRUE(store.lookup(key).has_value());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(store.persistent()) << store.warning();
  EXPECT_EQ(store.list().size(), 100u);
}

// A damaged database is moved aside (kept as <path>.damaged for a person to look at) and a fresh
// one takes its place: the cache repairs itself instead of staying unusable in every process.
TEST(AutotuneStore, TruncatedDatabaseIsSetAsideAndRebuilt) {
  ScratchDir dir;
  {
    Store store(dir.db());
    for (int i = 0; i < 100; ++i)
      store.record(make_entry(std::string("k").append(std::to_string(i)), "block=2", 8));
    ASSERT_TRUE(store.persistent()) << store.warning();
  }
  uintmax_t size = fs::file_size(dir.db());
  ASSERT_GT(size, 8192u);
  fs::resize_file(dir.db(), size / 2);
  Store store(dir.db());
  EXPECT_TRUE(store.persistent()) << store.warning();
  EXPECT_FALSE(store.lookup("k0").has_value());
  EXPECT_FALSE(store.lookup("k99").has_value());
  EXPECT_EQ(fs::file_size(dir.db() + ".damaged"), size / 2);
  store.record(make_entry("again"));
  EXPECT_TRUE(Store(dir.db()).lookup("again").has_value()) << "the rebuilt file persists";
}

TEST(AutotuneStore, GarbageFileIsSetAsideAndRebuilt) {
  ScratchDir dir;
  std::mt19937 rng(42);
  std::vector<char> bytes(10000);
  for (char& b : bytes) b = static_cast<char>(rng());
  write_bytes(dir.db(), bytes);
  Store store(dir.db());
  EXPECT_TRUE(store.persistent()) << store.warning();
  EXPECT_FALSE(store.lookup("k").has_value());
  EXPECT_TRUE(fs::exists(dir.db() + ".damaged"));
  store.record(make_entry("k"));
  EXPECT_TRUE(Store(dir.db()).lookup("k").has_value());
}

TEST(AutotuneStore, EmptyFileIsAnEmptyDatabase) {
  ScratchDir dir;
  write_bytes(dir.db(), {});
  Store store(dir.db());
  EXPECT_TRUE(store.persistent()) << store.warning();
  store.record(make_entry("k"));
  EXPECT_TRUE(Store(dir.db()).lookup("k").has_value());
}

// A newer Ember's tables and schema version are left alone; ours sit beside them.
TEST(AutotuneStore, NewerSchemaVersionKeepsItsTables) {
  ScratchDir dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.db().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER);"
                         "INSERT INTO meta VALUES('schema_version', 7);"
                         "CREATE TABLE autotune_winners_v7(key TEXT, blob TEXT);"
                         "INSERT INTO autotune_winners_v7 VALUES('future', 'x');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    Store store(dir.db());
    ASSERT_TRUE(store.persistent()) << store.warning();
    EXPECT_TRUE(store.list().empty());
    store.record(make_entry("k"));
    EXPECT_TRUE(store.lookup("k").has_value());
  }
  ASSERT_EQ(sqlite3_open(dir.db().c_str(), &db), SQLITE_OK);
  auto scalar = [db](const char* sql) {
    sqlite3_stmt* s = nullptr;
    std::string out = "<error>";
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    return out;
  };
  EXPECT_EQ(scalar("SELECT value FROM meta WHERE name = 'schema_version'"), "7");
  EXPECT_EQ(scalar("SELECT key FROM autotune_winners_v7"), "future");
  EXPECT_EQ(scalar("SELECT key FROM autotune_winners_v1"), "k");
  EXPECT_EQ(scalar("PRAGMA journal_mode"), "wal");
  sqlite3_close(db);
}

TEST(AutotuneStore, FreshDatabaseRecordsSchemaVersion) {
  ScratchDir dir;
  { Store store(dir.db()); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.db().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name = 'schema_version'", -1, &s,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 1);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

// Paths that cannot hold a database whoever runs the test (root ignores permission bits).
TEST(AutotuneStore, UnusablePathsFallBackToMemory) {
  ScratchDir dir;
  write_bytes(dir.file("plain"), {'x'});
  fs::create_directory(dir.file("a_directory"));
  for (const std::string& path : {dir.file("plain/autotune.sqlite"),
                                  dir.file("plain/sub/autotune.sqlite"), dir.file("a_directory")}) {
    SCOPED_TRACE(path);
    Store store(path);
    EXPECT_FALSE(store.lookup("k").has_value());
    expect_works_in_memory(store);
  }
}

TEST(AutotuneStore, ReadOnlyDirectoryFallsBackToMemory) {
  ScratchDir dir;
  fs::create_directory(dir.file("ro"));
  fs::permissions(dir.file("ro"), fs::perms(0555));
  as_unprivileged_user(dir.file(""), [&] {
    Store store(dir.file("ro/autotune.sqlite"));
    expect_works_in_memory(store);
  });
  EXPECT_FALSE(fs::exists(dir.file("ro/autotune.sqlite")));
  fs::permissions(dir.file("ro"), fs::perms(0755));
}

// A database that can be read but not written still serves its winners, from memory.
TEST(AutotuneStore, ReadOnlyFileFallsBackToMemory) {
  ScratchDir dir;
  Entry e = make_entry("k");
  { Store(dir.db()).record(e); }
  fs::permissions(dir.db(), fs::perms(0444));
  as_unprivileged_user(dir.file(""), [&] {
    Store store(dir.db());
    EXPECT_FALSE(store.persistent());
    EXPECT_NE(store.warning(), "");
    std::optional<Entry> got = store.lookup("k");
    ASSERT_TRUE(got.has_value());
    expect_same(*got, e);
    store.record(make_entry("k2"));
    EXPECT_TRUE(store.lookup("k2").has_value());
  });
  // The file is as it was: k2 went to memory only.
  Store again(dir.db());
  EXPECT_TRUE(again.lookup("k").has_value());
  EXPECT_FALSE(again.lookup("k2").has_value());
}

TEST(AutotuneStore, DefaultStorePath) {
  ScopedEnv cache("EMBER_CACHE_DIR", "/some/cache");
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
  ScopedEnv home("HOME", "/home/u");
  EXPECT_EQ(default_store_path(), "/some/cache/autotune.sqlite");
  {
    ScopedEnv no_cache("EMBER_CACHE_DIR", std::nullopt);
    EXPECT_EQ(default_store_path(), "/xdg/ember/autotune.sqlite");
    ScopedEnv no_xdg("XDG_CACHE_HOME", "");
    EXPECT_EQ(default_store_path(), "/home/u/.cache/ember/autotune.sqlite");
  }
}

TEST(AutotuneStore, ProcessStoreFollowsCacheDir) {
  ScratchDir a, b;
  Entry e = make_entry("matmul|a");
  {
    ScopedEnv env("EMBER_CACHE_DIR", a.file("cache"));
    Store& store = process_store();
    EXPECT_EQ(store.path(), a.file("cache/autotune.sqlite"));
    EXPECT_EQ(&process_store(), &store);
    EXPECT_TRUE(store.persistent()) << store.warning();
    store.record(e);
  }
  {
    ScopedEnv env("EMBER_CACHE_DIR", b.file("cache"));
    EXPECT_EQ(process_store().path(), b.file("cache/autotune.sqlite"));
    EXPECT_FALSE(process_store().lookup("matmul|a").has_value());
  }
  ScopedEnv env("EMBER_CACHE_DIR", a.file("cache"));
  std::optional<Entry> got = process_store().lookup("matmul|a");
  ASSERT_TRUE(got.has_value());
  expect_same(*got, e);
}

TEST(AutotuneStore, ProcessStoreWarnsOnce) {
  ScratchDir dir;
  write_bytes(dir.file("plain"), {'x'});
  ScopedEnv env("EMBER_CACHE_DIR", dir.file("plain/cache"));
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    Store& store = process_store();
    store.record(make_entry("k"));
    EXPECT_TRUE(store.lookup("k").has_value());
    EXPECT_FALSE(store.persistent());
  }
  std::string err = testing::internal::GetCapturedStderr();
  std::string expected = "ember: autotune cache " + dir.file("plain/cache/autotune.sqlite") +
                         " unusable (" + process_store().warning() +
                         "); using an in-memory cache\n";
  EXPECT_EQ(err, expected);
}

TEST(AutotuneStore, ProcessStoreHealthyIsSilent) {
  ScratchDir dir;
  ScopedEnv env("EMBER_CACHE_DIR", dir.file("cache"));
  testing::internal::CaptureStderr();
  process_store().record(make_entry("k"));
  EXPECT_TRUE(process_store().lookup("k").has_value());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(AutotuneStore, ToJsonRoundTrips) {
  Entry a = make_entry("matmul|dev \"quoted\"|64x64\n", "block=2", 2);
  Entry b = make_entry("row|x", "", 0);
  b.family = "row";
  b.winner_ms = -1;
  std::vector<Entry> entries = {a, b};
  nlohmann::json j = nlohmann::json::parse(to_json(entries));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const nlohmann::json& o = j[i];
    EXPECT_EQ(o.at("key").get<std::string>(), e.key);
    EXPECT_EQ(o.at("family").get<std::string>(), e.family);
    EXPECT_EQ(o.at("winner").get<std::string>(), e.winner);
    EXPECT_DOUBLE_EQ(o.at("winner_ms").get<double>(), e.winner_ms);
    EXPECT_EQ(o.at("created").get<int64_t>(), e.created_unix);
    ASSERT_EQ(o.at("candidates").size(), e.candidates.size());
    for (size_t k = 0; k < e.candidates.size(); ++k) {
      const nlohmann::json& c = o.at("candidates")[k];
      EXPECT_EQ(c.at("config").get<std::string>(), e.candidates[k].config);
      EXPECT_DOUBLE_EQ(c.at("time_ms").get<double>(), e.candidates[k].time_ms);
      EXPECT_EQ(c.at("status").get<std::string>(), e.candidates[k].status);
    }
  }
  EXPECT_EQ(nlohmann::json::parse(to_json({})), nlohmann::json::array());
}

}  // namespace
}  // namespace ember::autotune
