#include "autotune/tuner.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <exception>

namespace ember::autotune {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Run {
  Candidate c;
  std::vector<double> samples;
  bool alive = true;
};

// One run of a candidate: its time, or a status saying why it failed.
bool run_once(const std::function<double(const std::string&)>& measure, Run& r, double* ms) {
  try {
    *ms = measure(r.c.config);
    if (*ms >= 0) return true;
    r.c.status = "wrong result or failed run";
  } catch (const std::exception& e) {
    r.c.status = std::string("failed: ") + e.what();
  }
  r.alive = false;
  return false;
}

}  // namespace

Entry tune(const std::string& key, const std::string& family,
           const std::vector<std::string>& configs,
           const std::function<double(const std::string&)>& measure, const TuneOptions& options) {
  auto start = std::chrono::steady_clock::now();
  auto spent_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::vector<Run> runs;
  for (const std::string& c : configs) runs.push_back({{c, -1, "ok"}, {}, true});
  double ms = 0;
  for (Run& r : runs) run_once(measure, r, &ms);  // warm-up and check
  for (int round = 0; round < options.max_samples; ++round) {
    for (Run& r : runs) {
      if (r.alive && run_once(measure, r, &ms)) r.samples.push_back(ms);
    }
    if (round + 1 >= options.elimination_round) {
      double best = -1;
      for (const Run& r : runs) {
        if (r.alive) best = best < 0 ? median(r.samples) : std::min(best, median(r.samples));
      }
      for (Run& r : runs) {
        if (r.alive && median(r.samples) > options.eliminate_above * best) {
          r.alive = false;
          r.c.status = "eliminated";
        }
      }
    }
    if (spent_ms() > options.budget_ms) break;
  }
  Entry e;
  e.key = key;
  e.family = family;
  e.created_unix = static_cast<int64_t>(std::time(nullptr));
  for (Run& r : runs) {
    if (!r.samples.empty()) r.c.time_ms = median(r.samples);
    if (r.alive && (e.winner.empty() || r.c.time_ms < e.winner_ms)) {
      e.winner = r.c.config;
      e.winner_ms = r.c.time_ms;
    }
    e.candidates.push_back(r.c);
  }
  return e;
}

}  // namespace ember::autotune
