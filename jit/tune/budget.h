#pragma once
// How much of a run autotuning may take (EMBER_TUNE_BUDGET). A cold training step on a GPU
// spent minutes tuning before its first result (gpt_small_train_step: 140-160 s on an H100,
// about 800 kernels, each candidate compiled and timed). Tuning now gets a first allowance plus
// a share of the time since it was first asked for; the kernels it has no time for run their
// heuristic configurations meanwhile, their keys deferred, and are tuned once the allowance has
// grown again (the budget's generation is part of variant_epoch, so replays look again).
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace ember::jit {

struct TuneBudgetSetting {
  bool unlimited = false;
  double first_s = 0.5;  // allowance at the start of the run
  double share = 0.1;    // and this share of the time since
};

// "unlimited", "S" (seconds, then 10% of the run) or "S+P%"; throws ember::Error naming
// EMBER_TUNE_BUDGET and the text otherwise.
TuneBudgetSetting parse_tune_budget(std::string_view text);
// EMBER_TUNE_BUDGET's setting, 0.5 s + 10% when unset.
TuneBudgetSetting tune_budget_setting();
// Seconds of tuning allowed `elapsed_s` seconds into the run.
double tune_allowance_s(const TuneBudgetSetting& s, double elapsed_s);

// The process's tuning time: what was spent, the keys deferred for want of time.
class TuneBudget {
 public:
  static TuneBudget& process();

  // Whether tuning may go on now (the run's clock starts at the first call). Throws
  // ember::Error for a bad EMBER_TUNE_BUDGET.
  bool has_time();
  // Counts tuning time against the allowance (not while it is unlimited: time tuned then does
  // not exhaust a budget set later).
  void spend(double seconds);
  // A key left to its heuristic for now; freeze_variants does not offer it again until the
  // allowance exceeds what was spent by kRefillS.
  void defer(const std::string& key);
  bool deferred(const std::string& key);
  // Counts each time deferred keys were offered again (part of variant_epoch). With keys
  // deferred it reads EMBER_TUNE_BUDGET, and throws ember::Error for a bad one.
  uint64_t generation();
  // Seconds spent tuning so far.
  double spent_s();

  // Tests: a new run (clock not started, nothing spent or deferred).
  void reset();

  static constexpr double kRefillS = 0.25;

 private:
  double elapsed_locked() const;
  std::mutex mutex_;
  bool started_ = false;
  std::chrono::steady_clock::time_point start_;
  double spent_ = 0;
  std::set<std::string> deferred_;
  uint64_t generation_ = 0;
};

}  // namespace ember::jit
