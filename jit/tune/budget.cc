#include "jit/tune/budget.h"

#include <cstdlib>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::jit {

TuneBudgetSetting parse_tune_budget(std::string_view text) {
  TuneBudgetSetting s;
  if (text == "unlimited") {
    s.unlimited = true;
    return s;
  }
  std::string_view seconds = text, percent;
  const size_t plus = text.find('+');
  if (plus != std::string_view::npos) {
    seconds = text.substr(0, plus);
    percent = text.substr(plus + 1);
  }
  double first = 0, share_percent = s.share * 100;
  bool ok = absl::SimpleAtod(std::string(seconds), &first) && first >= 0 &&
            first <= std::numeric_limits<double>::max();
  if (ok && plus != std::string_view::npos) {
    ok = !percent.empty() && percent.back() == '%' &&
         absl::SimpleAtod(std::string(percent.substr(0, percent.size() - 1)), &share_percent) &&
         share_percent >= 0 && share_percent <= 100;
  }
  if (!ok) {
    throw Error(absl::StrCat("EMBER_TUNE_BUDGET='", std::string(text),
                             "': expected 'unlimited', seconds (e.g. 0.5) or seconds and a share "
                             "of the run (e.g. 0.5+10%)"));
  }
  s.first_s = first;
  s.share = share_percent / 100;
  return s;
}

TuneBudgetSetting tune_budget_setting() {
  const char* env = std::getenv("EMBER_TUNE_BUDGET");
  return env == nullptr || *env == '\0' ? TuneBudgetSetting{} : parse_tune_budget(env);
}

double tune_allowance_s(const TuneBudgetSetting& s, double elapsed_s) {
  if (s.unlimited) return std::numeric_limits<double>::infinity();
  return s.first_s + s.share * elapsed_s;
}

TuneBudget& TuneBudget::process() {
  static auto* budget = new TuneBudget;
  return *budget;
}

double TuneBudget::elapsed_locked() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool TuneBudget::has_time() {
  TuneBudgetSetting setting = tune_budget_setting();
  std::lock_guard lock(mutex_);
  if (!started_) {
    started_ = true;
    start_ = std::chrono::steady_clock::now();
  }
  return spent_ < tune_allowance_s(setting, elapsed_locked());
}

void TuneBudget::spend(double seconds) {
  TuneBudgetSetting setting = tune_budget_setting();
  std::lock_guard lock(mutex_);
  if (!setting.unlimited) spent_ += seconds;
}

void TuneBudget::reset() {
  std::lock_guard lock(mutex_);
  started_ = false;
  spent_ = 0;
  deferred_.clear();
}

void TuneBudget::defer(const std::string& key) {
  std::lock_guard lock(mutex_);
  deferred_.insert(key);
}

bool TuneBudget::deferred(const std::string& key) {
  std::lock_guard lock(mutex_);
  return deferred_.count(key) > 0;
}

uint64_t TuneBudget::generation() {
  std::lock_guard lock(mutex_);
  if (deferred_.empty()) return generation_;
  // The environment is read only with keys deferred: a replay check stays cheap otherwise. A bad
  // setting is reported here (no flush would tune while every pending key is deferred).
  TuneBudgetSetting setting = tune_budget_setting();
  double allowance = tune_allowance_s(setting, elapsed_locked());
  if (allowance - spent_ >= kRefillS) {
    deferred_.clear();
    ++generation_;
  }
  return generation_;
}

double TuneBudget::spent_s() {
  std::lock_guard lock(mutex_);
  return spent_;
}

}  // namespace ember::jit
