#include "autotune/key.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::autotune {

int64_t anchor(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

int alignment(int64_t n) {
  for (int a : {16, 8, 4, 2}) {
    if (n % a == 0) return a;
  }
  return 1;
}

std::string TuneKey::to_string() const {
  std::vector<int64_t> anchored, aligned;
  for (int64_t s : sizes) {
    anchored.push_back(anchor(s));
    aligned.push_back(alignment(s));
  }
  return absl::StrCat(family, "|", device, " ember ", kEmberVersion, "|",
                      absl::StrJoin(anchored, "x"), "|a", absl::StrJoin(aligned, "x"), "|",
                      absl::StrJoin(flags, ","));
}

}  // namespace ember::autotune
