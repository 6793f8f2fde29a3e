#pragma once
// Tuning keys: a winner is looked up by kernel family, device fingerprint and the problem, whose
// sizes are anchored to powers of two so one tuning serves a range of sizes, plus alignment and
// layout flags so a winner is never used for a problem it was not valid for (a configuration
// found at 4096 may assume what 4095 breaks).
#include <cstdint>
#include <string>
#include <vector>

namespace ember::autotune {

// The next power of two >= n (1 for n <= 1).
int64_t anchor(int64_t n);
// The largest of 1, 2, 4, 8, 16 dividing n: the alignment class a size belongs to.
int alignment(int64_t n);

struct TuneKey {
  std::string family;              // "matmul"
  std::string device;              // vendor, device name, driver, Ember version
  std::vector<int64_t> sizes;      // exact problem sizes; the key anchors them
  std::vector<std::string> flags;  // dtype, transposed operands, ...
  // "matmul|<device>|2048x4096x64|a16x16x16|f32,a_t"
  std::string to_string() const;
};

// Ember's version, part of every device fingerprint: a new version retunes.
inline constexpr const char* kEmberVersion = "0.1.0";

}  // namespace ember::autotune
