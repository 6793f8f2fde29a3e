#pragma once
// What every tunable kernel family shares: the cached winner of a key (read from the process
// store once, then remembered), and tuning a key over its configurations on the device (the
// entry recorded, and printed under EMBER_DUMP=autotune).
#include <functional>
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace ember::jit {

// Whether kernels are tuned on `backend` under EMBER_AUTOTUNE=on (stored winners are used
// everywhere). Not on GPU Vulkan drivers: on the H100's, a kernel's timestamps read 3-5x its
// steady time when it runs alone (run 37), and even timed over bursts the winners came out
// different from one process to the next (runs 46 and 48: the same mlp_train_step at 3.6 and
// 12.9 ms); the cause, maybe clocks dropping while tuning waits on the host, is not established.
bool tunes_on(const runtime::Backend& backend);

// The stored winner's configuration for `key`; empty when the key was never tuned.
std::string cached_winner(const std::string& key);
// A stored winner that this target cannot run (another target's variant, a damaged row): it
// is removed from the store and forgotten, with one warning per process; the caller then
// treats the key as untuned.
void discard_winner(const std::string& key, const std::string& winner);

// A count that grows whenever a remembered winner changes (tuned, recorded or discarded): a
// frozen plan whose variants were chosen at the same count chooses them again.
uint64_t winners_generation();

// Times `configs` with `measure` (device ms; < 0 or a throw: failed or wrong), records the
// entry and returns the winner's configuration; `fallback` when none worked (remembered for
// the key, so that the process does not tune it again).
std::string tune_and_record(const std::string& key, const std::string& family,
                            const std::vector<std::string>& configs, const std::string& fallback,
                            const std::function<double(const std::string&)>& measure);

// While a CandidateScan lives on this thread, tune_and_record only calls `measure` once for
// each configuration (results ignored) and records nothing, returning `fallback`: a plan's
// tuning candidates are collected that way and compiled together on all cores before the real
// tuning times them one after another (jit/tune/freeze.cc).
class CandidateScan {
 public:
  CandidateScan();
  ~CandidateScan();
  CandidateScan(const CandidateScan&) = delete;
  CandidateScan& operator=(const CandidateScan&) = delete;

 private:
  bool was_;
};

// EMBER_<name>=v forces variant v of a family on every device when v is one of `allowed`
// (tests run every variant); 0 when unset or not allowed.
int forced_variant(const char* name, const std::vector<int>& allowed);

}  // namespace ember::jit
