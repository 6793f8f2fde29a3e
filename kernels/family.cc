#include "kernels/family.h"

#include "absl/strings/str_cat.h"

namespace ember::jit {

std::string Family::describe(Variant v) const { return absl::StrCat(v); }

}  // namespace ember::jit
