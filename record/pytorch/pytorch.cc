#include "record/pytorch/pytorch.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "record/pytorch/pickle.h"
#include "record/pytorch/zip_archive.h"

namespace ember::record {

namespace {

using namespace pytorch;

// Nested containers deeper than this are refused (a hostile pickle can nest without end).
constexpr int kMaxDepth = 64;

class StateDictReader {
 public:
  explicit StateDictReader(const std::string& path) : zip_(path), where_("record: '" + path + "'") {
    for (const std::string& n : zip_.names()) {
      const auto slash = n.find('/');
      if (slash != std::string::npos && n.substr(slash) == "/data.pkl")
        prefix_ = n.substr(0, slash + 1);
    }
    if (prefix_.empty()) {
      throw Error(where_ +
                  ": no <name>/data.pkl in the archive (not a torch.save file, or the "
                  "legacy pre-1.6 format: re-save it with a recent PyTorch)");
    }
    if (zip_.contains(prefix_ + "byteorder")) {
      auto b = zip_.read(prefix_ + "byteorder");
      if (std::string(reinterpret_cast<const char*>(b.data()), b.size()) != "little") {
        throw Error(where_ + ": big-endian tensors are not supported");
      }
    }
  }

  Record read() {
    ValuePtr root = unpickle(zip_.read(prefix_ + "data.pkl"), where_);
    Record r;
    flatten(root, "", r, 0);
    return r;
  }

 private:
  void flatten(const ValuePtr& v, const std::string& path, Record& r, int depth) {
    if (depth > kMaxDepth) throw Error(where_ + ": containers nested deeper than 64");
    auto join = [&](const std::string& name) { return path.empty() ? name : path + "." + name; };
    if (auto* d = std::get_if<Dict>(&v->v)) {
      for (const auto& [k, x] : d->items) {
        flatten(x, join(key_text(k)), r, depth + 1);
      }
    } else if (auto* l = std::get_if<List>(&v->v)) {
      for (size_t i = 0; i < l->items.size(); ++i) {
        flatten(l->items[i], join(std::to_string(i)), r, depth + 1);
      }
    } else if (auto* t = std::get_if<Tuple>(&v->v)) {
      for (size_t i = 0; i < t->items.size(); ++i) {
        flatten(t->items[i], join(std::to_string(i)), r, depth + 1);
      }
    } else if (auto* t = std::get_if<TensorRef>(&v->v)) {
      r.entries.emplace_back(path, tensor(*t, path));
    } else if (auto* i = std::get_if<int64_t>(&v->v)) {
      r.metadata["pytorch." + path] = std::to_string(*i);
    } else if (auto* f = std::get_if<double>(&v->v)) {
      r.metadata["pytorch." + path] = std::to_string(*f);
    } else if (auto* s = std::get_if<std::string>(&v->v)) {
      r.metadata["pytorch." + path] = *s;
    } else if (auto* b = std::get_if<bool>(&v->v)) {
      r.metadata["pytorch." + path] = *b ? "true" : "false";
    }
    // None and bare globals (never called) carry nothing.
  }

  std::string key_text(const ValuePtr& k) const {
    if (auto* s = std::get_if<std::string>(&k->v)) return *s;
    if (auto* i = std::get_if<int64_t>(&k->v)) return std::to_string(*i);
    throw Error(where_ + ": a dict key is neither a string nor an integer");
  }

  const std::vector<std::byte>& storage(const StorageRef& s, const std::string& at) {
    auto it = storages_.find(s.key);
    if (it == storages_.end()) {
      it = storages_.emplace(s.key, zip_.read(prefix_ + "data/" + s.key)).first;
    }
    const uint64_t want = checked_nbytes(at, s.dtype, Shape{s.numel});
    if (it->second.size() < want) {
      throw Error(at + ": storage '" + s.key + "' holds " + std::to_string(it->second.size()) +
                  " bytes, its " + std::to_string(s.numel) + " elements need " +
                  std::to_string(want));
    }
    return it->second;
  }

  // The view's elements, dense and row-major.
  TensorData tensor(const TensorRef& t, const std::string& path) {
    const std::string at = where_ + ", tensor '" + path + "'";
    const Shape shape(t.size);
    const std::vector<std::byte>& bytes = storage(t.storage, at);
    const uint64_t nbytes = checked_nbytes(at, t.storage.dtype, shape);
    if (nbytes == 0) return TensorData(t.storage.dtype, shape);
    // The furthest element the view reaches must lie inside the storage.
    int64_t last = t.offset;
    if (t.offset < 0) throw Error(at + ": negative storage offset");
    for (size_t d = 0; d < t.size.size(); ++d) {
      if (t.stride[d] < 0) throw Error(at + ": negative stride");
      if (t.stride[d] > 0 && (t.size[d] - 1) > (INT64_MAX - last) / t.stride[d]) {
        throw Error(at + ": strides overflow");
      }
      last += (t.size[d] - 1) * t.stride[d];
    }
    if (last >= t.storage.numel) {
      throw Error(at + ": view reaches element " + std::to_string(last) + " of a storage of " +
                  std::to_string(t.storage.numel));
    }
    // A broadcast view (stride 0) may name more elements than its storage holds, but not
    // without bound: a corrupt size must not allocate terabytes.
    if (nbytes > std::max<uint64_t>(bytes.size() * 64, uint64_t(1) << 20)) {
      throw Error(at + ": a view of " + shape.to_string() + " over a storage of " +
                  std::to_string(t.storage.numel) + " elements (implausible)");
    }
    TensorData out(t.storage.dtype, shape);
    gather(t, bytes, out);
    return out;
  }

  static void gather(const TensorRef& t, const std::vector<std::byte>& src, TensorData& out) {
    const size_t esize = dtype_size(t.storage.dtype);
    std::byte* dst = out.mutable_bytes().data();
    const Shape shape(t.size);
    const auto dense = shape.contiguous_strides();
    if (dense == t.stride) {
      std::memcpy(dst, src.data() + t.offset * esize, out.bytes().size());
      return;
    }
    const int rank = shape.rank();
    std::vector<int64_t> index(rank, 0);
    const int64_t n = shape.numel();
    for (int64_t i = 0; i < n; ++i) {
      int64_t at = t.offset;
      for (int d = 0; d < rank; ++d) at += index[d] * t.stride[d];
      std::memcpy(dst + i * esize, src.data() + at * esize, esize);
      for (int d = rank - 1; d >= 0 && ++index[d] == t.size[d]; --d) index[d] = 0;
    }
  }

  ZipArchive zip_;
  std::string where_;
  std::string prefix_;
  std::map<std::string, std::vector<std::byte>> storages_;
};

}  // namespace

Record read_pytorch(const std::string& path, const LoadOptions&) {
  return StateDictReader(path).read();
}

}  // namespace ember::record
