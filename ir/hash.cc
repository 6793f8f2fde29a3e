// Structural hashing of graphs (see graph.h for what is kept and what is ignored).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "ir/attrs.h"
#include "ir/graph.h"

namespace ember::ir {
namespace {

// Fields are gathered into a buffer and streamed to xxHash a buffer at a time: a call per
// field (about ten per node) cost a fifth of an eager step's host time.
class Hasher {
 public:
  // The state lives on the stack: a hash per flush need not allocate.
  Hasher() {
    XXH3_INITSTATE(&state_);
    XXH3_64bits_reset(&state_);
  }
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  template <class T>
  void add(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8);
    if (used_ + sizeof(T) > sizeof(buffer_)) flush();
    std::memcpy(buffer_ + used_, &v, sizeof(T));
    used_ += sizeof(T);
  }
  // Sizes are replaced by equality classes; 1 keeps its own class (it decides broadcasting).
  void add_size(int64_t size) {
    if (size == 1) return add<int64_t>(-1);
    add<int64_t>(size_class(size));
  }
  uint64_t digest() {
    flush();
    return XXH3_64bits_digest(&state_);
  }

 private:
  void flush() {
    XXH3_64bits_update(&state_, buffer_, used_);
    used_ = 0;
  }

  // The class of a size: its index among the distinct sizes seen so far. A graph holds a few
  // distinct sizes, searched linearly (a hash map lookup per dim cost more than the hashing).
  // Past kLinear sizes, a map takes over.
  int64_t size_class(int64_t size) {
    if (size == last_size_) return last_class_;
    last_size_ = size;
    if (!many_sizes_.empty()) {
      auto [it, fresh] = many_sizes_.try_emplace(size, static_cast<int64_t>(many_sizes_.size()));
      return last_class_ = it->second;
    }
    auto it = std::find(sizes_.begin(), sizes_.end(), size);
    last_class_ = it - sizes_.begin();
    if (it != sizes_.end()) return last_class_;
    sizes_.push_back(size);
    if (sizes_.size() > kLinear) {
      for (size_t i = 0; i < sizes_.size(); ++i) many_sizes_[sizes_[i]] = static_cast<int64_t>(i);
    }
    return last_class_;
  }

  XXH3_state_t state_;
  unsigned char buffer_[1024];
  size_t used_ = 0;
  static constexpr size_t kLinear = 32;
  absl::InlinedVector<int64_t, kLinear> sizes_;
  absl::flat_hash_map<int64_t, int64_t> many_sizes_;
  int64_t last_size_ = -1, last_class_ = 0;
};

void add_attrs(Hasher& h, const Attrs& attrs) {
  h.add(static_cast<int>(attrs.index()));
  for_each_field(attrs, [&](const char*, const auto& v, Role role) {
    using T = std::decay_t<decltype(v)>;
    switch (role) {
      case Role::Key:
        field_words(v, [&](uint64_t w) { h.add(w); });
        break;
      case Role::Size:
        field_words(v, [&](uint64_t w) { h.add_size(static_cast<int64_t>(w)); });
        break;
      case Role::Extent:
        break;
      case Role::Scalar:
        if constexpr (std::is_same_v<T, Scalar>) h.add(v.is_int);
        break;
    }
  });
}

}  // namespace

uint64_t structural_hash(const Graph& g, const std::vector<ValueId>& outputs) {
  Hasher h;
  for (const Node& n : g.nodes()) {
    h.add(n.op);
    h.add(static_cast<int>(n.inputs.size()));
    for (ValueId in : n.inputs) h.add(in);
    h.add(n.type.dtype);
    h.add(n.type.shape.rank());
    for (int64_t d : n.type.shape.dims) h.add_size(d);
    add_attrs(h, n.attrs);
    if (n.op == OpKind::Reshape) {  // its index is mapped group by group (jit/codegen/emitter.cc)
      for (const ReshapeGroup& r : reshape_groups(n.type.shape, g.type(n.inputs[0]).shape)) {
        h.add(static_cast<int>(r.out.size()));
        h.add(static_cast<int>(r.in.size()));
      }
    }
  }
  h.add<int>(-7);  // separates nodes from outputs
  for (ValueId o : outputs) h.add(o);
  return h.digest();
}

}  // namespace ember::ir
