#include "ir/attrs.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ember::ir {

int scalar_field_index(const Attrs& attrs, const char* name) {
  int index = 0, found = -1;
  for_each_field(attrs, [&](const char* n, const auto&, Role role) {
    if (role != Role::Scalar) return;
    if (found < 0 && std::strcmp(n, name) == 0) found = index;
    ++index;
  });
  return found;
}

ScalarValue scalar_field(const Attrs& attrs, int index) {
  ScalarValue out;
  int i = 0;
  for_each_field(attrs, [&](const char*, const auto& v, Role role) {
    using T = std::decay_t<decltype(v)>;
    if (role != Role::Scalar) return;
    if constexpr (std::is_same_v<T, Scalar> || std::is_same_v<T, double> ||
                  std::is_same_v<T, uint64_t>) {
      if (i == index) out = v;
    }
    ++i;
  });
  return out;
}

namespace {

std::string enum_text(RandomDist d) { return dist_name(d); }
std::string enum_text(UnaryFn f) { return unary_name(f); }
std::string enum_text(BinaryFn f) { return binary_name(f); }
std::string enum_text(ReduceFn f) { return reduce_name(f); }
std::string enum_text(CollectiveKind k) { return collective_name(k); }
std::string enum_text(CollectiveReduce r) {
  static const char* kNames[] = {"sum", "mean", "max", "min", "prod"};
  return kNames[static_cast<int>(r)];
}

template <class T>
std::string field_text(const char* name, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? name : "";
  } else if constexpr (std::is_enum_v<T>) {
    return enum_text(v);  // the value names itself (uniform, normal, ...)
  } else if constexpr (is_vector_field<T>) {
    return absl::StrCat(name, "=[", absl::StrJoin(v, ","), "]");
  } else if constexpr (std::is_same_v<T, Scalar>) {
    return v.is_int ? absl::StrCat(name, "=", v.i) : absl::StrCat(name, "=", v.f);
  } else {
    return absl::StrCat(name, "=", v);
  }
}

}  // namespace

std::string attrs_text(const Attrs& attrs) {
  std::vector<std::string> parts;
  for_each_field(attrs, [&](const char* name, const auto& v, Role) {
    if (std::strcmp(name, "fn") == 0) return;
    std::string t = field_text(name, v);
    if (!t.empty()) parts.push_back(std::move(t));
  });
  return absl::StrJoin(parts, " ");
}

std::string attrs_fn_name(const Attrs& attrs) {
  std::string out;
  for_each_field(attrs, [&](const char* name, const auto& v, Role) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_enum_v<T>) {
      if (std::strcmp(name, "fn") == 0) out = enum_text(v);
    }
  });
  return out;
}

}  // namespace ember::ir
