// ember-autotune: inspects, exports and clears the autotune cache (autotune/store.h).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotune/store.h"

namespace {

using ember::autotune::Entry;
using ember::autotune::Store;

constexpr const char* kUsage = R"(usage: ember-autotune [--db PATH] COMMAND
  list            one line per key: key, family, winner, winner_ms, number of candidates
  export [FILE]   every entry as JSON, to stdout or FILE
  clear [PREFIX]  removes every entry, or those whose key starts with PREFIX
options:
  --db PATH       the database (default: $EMBER_CACHE_DIR/autotune.sqlite, else
                  $XDG_CACHE_HOME/ember/autotune.sqlite, else ~/.cache/ember/autotune.sqlite)
  --help          this text
)";

struct Args {
  std::string db;
  std::string command;
  std::optional<std::string> operand;
};

int usage_error(const std::string& why) {
  std::fprintf(stderr, "ember-autotune: %s\n%s", why.c_str(), kUsage);
  return 2;
}

// Fills `args`; returns an exit status when the program should stop (help, bad arguments).
std::optional<int> parse(int argc, char** argv, Args& args) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--db") {
      if (i + 1 == argc || !*argv[i + 1]) return usage_error("--db needs a path");
      args.db = argv[++i];
    } else if (a.rfind("--db=", 0) == 0) {
      if (a.size() == 5) return usage_error("--db needs a path");
      args.db = a.substr(5);
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty()) return usage_error("no command");
  args.command = positional[0];
  if (args.command != "list" && args.command != "export" && args.command != "clear") {
    return usage_error("unknown command " + args.command);
  }
  if (positional.size() > 2) return usage_error("too many arguments");
  if (positional.size() == 2) args.operand = positional[1];
  if (args.command == "list" && args.operand) return usage_error("list takes no argument");
  return std::nullopt;
}

void list(Store& store) {
  for (const Entry& e : store.list()) {
    std::printf("%s\t%s\t%s\t%.4f ms\t%zu candidates\n", e.key.c_str(), e.family.c_str(),
                e.winner.c_str(), e.winner_ms, e.candidates.size());
  }
}

int export_json(Store& store, const std::optional<std::string>& file) {
  std::string json = ember::autotune::to_json(store.list()) + "\n";
  if (!file) {
    std::fputs(json.c_str(), stdout);
    return 0;
  }
  std::ofstream out(*file);
  out << json;
  if (!out.flush()) {
    std::fprintf(stderr, "ember-autotune: cannot write %s\n", file->c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (std::optional<int> status = parse(argc, argv, args)) return *status;
  // The process-wide store announces its own warning; a store opened here does it likewise.
  std::unique_ptr<Store> own;
  if (!args.db.empty()) {
    own = std::make_unique<Store>(args.db);
    if (!own->warning().empty()) {
      std::fprintf(stderr, "ember: autotune cache %s unusable (%s); using an in-memory cache\n",
                   args.db.c_str(), own->warning().c_str());
    }
  }
  Store& store = own ? *own : ember::autotune::process_store();
  if (args.command == "list") {
    list(store);
  } else if (args.command == "export") {
    return export_json(store, args.operand);
  } else {
    std::printf("removed %d entries\n", store.clear(args.operand.value_or("")));
  }
  return 0;
}
