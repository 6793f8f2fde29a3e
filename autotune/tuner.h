#pragma once
// Times a family's candidate configurations on the device and picks the fastest.
#include <functional>
#include <string>
#include <vector>

#include "autotune/store.h"

namespace ember::autotune {

struct TuneOptions {
  double budget_ms = 3000;       // wall-clock budget of one tuning
  int max_samples = 7;           // timed runs per surviving candidate
  int elimination_round = 3;     // from this many samples on, clearly slower candidates drop out
  double eliminate_above = 1.5;  // "clearly slower": median above this multiple of the best
};

// `measure(config)` runs the candidate once and returns its device time in ms; a throw or a
// negative result (failed to compile, to run, or gave wrong results on the check input)
// discards it. Each candidate is run once untimed first (warm-up and check). The entry lists
// every candidate with its median time and status; `winner` is empty when none worked.
Entry tune(const std::string& key, const std::string& family,
           const std::vector<std::string>& configs,
           const std::function<double(const std::string&)>& measure,
           const TuneOptions& options = {});

}  // namespace ember::autotune
