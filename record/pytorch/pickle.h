#pragma once
// A restricted unpickler for PyTorch state dicts. It understands the opcodes torch.save emits
// (protocols 2 to 5) and builds plain values; the only callables it knows are on an allow-list
// (collections.OrderedDict, torch._utils._rebuild_tensor_v2, _rebuild_parameter, the typed
// storages), and it never runs anything: any other global, or REDUCE/BUILD on anything else, is an
// ember::Error naming the file and the global.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace ember::record::pytorch {

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct None {};
struct Tuple {
  std::vector<ValuePtr> items;
};
struct List {
  std::vector<ValuePtr> items;
};
struct Dict {
  std::vector<std::pair<ValuePtr, ValuePtr>> items;  // in insertion order
};
// An allow-listed global, not yet called.
struct Global {
  std::string module, name;
};
// A storage of the archive (data/<key>): its element type and element count.
struct StorageRef {
  DType dtype;
  std::string key;
  int64_t numel;
};
// _rebuild_tensor_v2's arguments: a strided view of a storage.
struct TensorRef {
  StorageRef storage;
  int64_t offset;
  std::vector<int64_t> size, stride;
  bool requires_grad;
};
// The type marker of a storage class (torch.FloatStorage, ...).
struct StorageType {
  DType dtype;
};

struct Value {
  std::variant<None, bool, int64_t, double, std::string, Tuple, List, Dict, Global, StorageType,
               StorageRef, TensorRef>
      v;
};

// Unpickles `data`; `where` names the file in errors.
ValuePtr unpickle(std::span<const std::byte> data, const std::string& where);

}  // namespace ember::record::pytorch
