#pragma once
// Helper functions written once in the subset of C that GLSL and CUDA C++ share, for each
// arithmetic type a kernel uses: "T" is replaced by the type's name and "FN" by the function
// qualifiers of the target ("" in GLSL, "__device__ __forceinline__" in CUDA).
#include <string>

#include "absl/strings/str_replace.h"

namespace ember::jit {

// Integer remainder with the sign of the divisor (PyTorch's %), 0 for a zero divisor (the
// kernel reports that error separately), and integer powers.
inline constexpr const char* kIntHelpers = R"(
FN T irem_T(T a, T b) {
  if (b == T(0) || b == T(-1)) return T(0);
  T r = a - (a / b) * b;
  return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
}
FN T ipow_T(T base, T e) {
  if (e < T(0)) return base == T(1) ? T(1) : (base == T(-1) ? ((e % T(2)) == T(0) ? T(1) : T(-1)) : T(0));
  T r = T(1);
  while (e > T(0)) { if ((e & T(1)) != T(0)) r *= base; base *= base; e >>= T(1); }
  return r;
}
)";

// fmod, then the sign of the divisor; an infinite divisor leaves the dividend.
inline constexpr const char* kFloatRemainder = R"(
FN T frem_T(T a, T b) {
  T r = (isinf(b) && !isinf(a)) ? a : a - b * trunc(a / b);
  return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? r + b : r;
}
)";

inline std::string instantiate(const char* helpers, const std::string& type,
                               const std::string& qualifiers) {
  return absl::StrReplaceAll(helpers,
                             {{"FN ", qualifiers.empty() ? "" : qualifiers + " "}, {"T", type}});
}

}  // namespace ember::jit
