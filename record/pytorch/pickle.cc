#include "record/pytorch/pickle.h"

#include <cstring>
#include <unordered_map>

#include "ir/error.h"

namespace ember::record::pytorch {

namespace {

template <class T>
ValuePtr make(T v) {
  return std::make_shared<Value>(Value{std::move(v)});
}

// Storage classes torch.save names, by dtype.
bool storage_dtype(const std::string& name, DType& out) {
  static const std::pair<const char*, DType> kTypes[] = {
      {"FloatStorage", DType::F32},  {"HalfStorage", DType::F16}, {"BFloat16Storage", DType::BF16},
      {"DoubleStorage", DType::F64}, {"IntStorage", DType::I32},  {"LongStorage", DType::I64},
      {"ByteStorage", DType::U8},    {"BoolStorage", DType::Bool}};
  for (const auto& [n, t] : kTypes) {
    if (name == n) {
      out = t;
      return true;
    }
  }
  return false;
}

class Unpickler {
 public:
  Unpickler(std::span<const std::byte> data, std::string where)
      : data_(data), where_(std::move(where)) {}

  ValuePtr run() {
    while (true) {
      const uint8_t op = u8();
      if (op == '.') break;
      step(op);
    }
    if (stack_.size() != 1)
      fail("the pickle ends with " + std::to_string(stack_.size()) + " values");
    return stack_.back();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(where_ + ": pickle at byte " + std::to_string(pos_) + ": " + what);
  }

  void need(size_t n) const {
    if (n > data_.size() - pos_) fail("truncated (needs " + std::to_string(n) + " more bytes)");
  }
  uint8_t u8() {
    need(1);
    return static_cast<uint8_t>(data_[pos_++]);
  }
  template <class T>
  T le() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string bytes(uint64_t n) {
    need(n);
    std::string s(reinterpret_cast<const char*>(data_.data()) + pos_, n);
    pos_ += n;
    return s;
  }
  std::string line() {
    size_t end = pos_;
    while (end < data_.size() && data_[end] != std::byte('\n')) ++end;
    if (end == data_.size()) fail("truncated (unterminated GLOBAL)");
    std::string s = bytes(end - pos_);
    ++pos_;
    return s;
  }

  ValuePtr pop() {
    if (stack_.empty() || stack_.size() <= (marks_.empty() ? 0 : marks_.back())) {
      fail("stack underflow");
    }
    ValuePtr v = stack_.back();
    stack_.pop_back();
    return v;
  }
  ValuePtr& top() {
    if (stack_.empty()) fail("stack underflow");
    return stack_.back();
  }
  std::vector<ValuePtr> pop_mark() {
    if (marks_.empty()) fail("no MARK");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> items(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return items;
  }
  void memo_put(uint64_t key) { memo_[key] = top(); }
  ValuePtr memo_get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) fail("memo key " + std::to_string(key) + " never stored");
    return it->second;
  }

  void push_global(std::string module, std::string name) {
    DType t;
    if (module == "torch" && storage_dtype(name, t)) return stack_.push_back(make(StorageType{t}));
    const bool allowed = (module == "collections" && name == "OrderedDict") ||
                         (module == "torch._utils" &&
                          (name == "_rebuild_tensor_v2" || name == "_rebuild_parameter" ||
                           name == "_rebuild_parameter_with_state"));
    if (!allowed) {
      fail("refuses global '" + module + "." + name +
           "': only state dicts of tensors load (Ember never runs pickled code); save "
           "model.state_dict() in PyTorch");
    }
    stack_.push_back(make(Global{std::move(module), std::move(name)}));
  }

  void step(uint8_t op);
  void append_items(const ValuePtr& target, std::vector<ValuePtr> items);
  void set_items(const ValuePtr& target, const std::vector<ValuePtr>& kv);
  ValuePtr reduce(const ValuePtr& callable, const ValuePtr& args);
  ValuePtr rebuild_tensor(const std::vector<ValuePtr>& a);
  ValuePtr persistent_load(const ValuePtr& pid);

  std::span<const std::byte> data_;
  std::string where_;
  size_t pos_ = 0;
  std::vector<ValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ValuePtr> memo_;
};

const std::vector<ValuePtr>* tuple_items(const ValuePtr& v) {
  if (auto* t = std::get_if<Tuple>(&v->v)) return &t->items;
  return nullptr;
}

int64_t as_int(const ValuePtr& v, const char* what, const std::string& where) {
  if (auto* i = std::get_if<int64_t>(&v->v)) return *i;
  throw Error(where + ": " + what + " is not an integer");
}

std::vector<int64_t> int_tuple(const ValuePtr& v, const char* what, const std::string& where) {
  const auto* items = tuple_items(v);
  if (!items) throw Error(where + ": " + what + " is not a tuple");
  std::vector<int64_t> out;
  for (const auto& x : *items) out.push_back(as_int(x, what, where));
  return out;
}

void Unpickler::append_items(const ValuePtr& target, std::vector<ValuePtr> items) {
  auto* list = std::get_if<List>(&target->v);
  if (!list) fail("APPEND to something not a list");
  for (auto& x : items) list->items.push_back(std::move(x));
}

void Unpickler::set_items(const ValuePtr& target, const std::vector<ValuePtr>& kv) {
  auto* dict = std::get_if<Dict>(&target->v);
  if (!dict) fail("SETITEM on something not a dict");
  if (kv.size() % 2) fail("SETITEMS with an odd number of values");
  for (size_t i = 0; i < kv.size(); i += 2) dict->items.emplace_back(kv[i], kv[i + 1]);
}

ValuePtr Unpickler::persistent_load(const ValuePtr& pid) {
  const auto* t = tuple_items(pid);
  if (!t || t->size() != 5) fail("persistent id is not ('storage', type, key, location, numel)");
  auto* tag = std::get_if<std::string>(&(*t)[0]->v);
  auto* type = std::get_if<StorageType>(&(*t)[1]->v);
  auto* key = std::get_if<std::string>(&(*t)[2]->v);
  if (!tag || *tag != "storage" || !type || !key) fail("persistent id is not a storage");
  const int64_t numel = as_int((*t)[4], "storage size", where_);
  if (numel < 0) fail("negative storage size");
  return make(StorageRef{type->dtype, *key, numel});
}

ValuePtr Unpickler::rebuild_tensor(const std::vector<ValuePtr>& a) {
  if (a.size() < 4) fail("_rebuild_tensor_v2 with " + std::to_string(a.size()) + " arguments");
  auto* storage = std::get_if<StorageRef>(&a[0]->v);
  if (!storage) fail("_rebuild_tensor_v2 of something not a storage");
  TensorRef t{*storage, as_int(a[1], "storage offset", where_),
              int_tuple(a[2], "tensor size", where_), int_tuple(a[3], "tensor stride", where_),
              false};
  if (a.size() > 4) {
    if (auto* b = std::get_if<bool>(&a[4]->v)) t.requires_grad = *b;
  }
  if (t.size.size() != t.stride.size()) fail("tensor size and stride differ in rank");
  return make(std::move(t));
}

ValuePtr Unpickler::reduce(const ValuePtr& callable, const ValuePtr& args) {
  auto* g = std::get_if<Global>(&callable->v);
  const auto* a = tuple_items(args);
  if (!g || !a) fail("REDUCE of something not an allow-listed global");
  if (g->name == "OrderedDict") {
    if (!a->empty()) fail("OrderedDict with arguments");
    return make(Dict{});
  }
  if (g->name == "_rebuild_tensor_v2") return rebuild_tensor(*a);
  // _rebuild_parameter(data, requires_grad, hooks[, state]): the tensor itself.
  if (a->empty() || !std::holds_alternative<TensorRef>((*a)[0]->v)) {
    fail(g->name + " of something not a tensor");
  }
  TensorRef t = std::get<TensorRef>((*a)[0]->v);
  if (a->size() > 1) {
    if (auto* b = std::get_if<bool>(&(*a)[1]->v)) t.requires_grad = *b;
  }
  return make(std::move(t));
}

void Unpickler::step(uint8_t op) {
  switch (op) {
    case 0x80:
      u8();
      return;  // PROTO
    case 0x95:
      le<uint64_t>();
      return;  // FRAME
    case '(':
      marks_.push_back(stack_.size());
      return;
    case '0':
      pop();
      return;
    case '1':
      pop_mark();
      return;
    case '2':
      stack_.push_back(top());
      return;
    case 'N':
      stack_.push_back(make(None{}));
      return;
    case 0x88:
      stack_.push_back(make(true));
      return;
    case 0x89:
      stack_.push_back(make(false));
      return;
    case 'J':
      stack_.push_back(make(int64_t{le<int32_t>()}));
      return;
    case 'K':
      stack_.push_back(make(int64_t{u8()}));
      return;
    case 'M':
      stack_.push_back(make(int64_t{le<uint16_t>()}));
      return;
    case 0x8a: {  // LONG1: little-endian two's complement of n bytes
      const uint8_t n = u8();
      if (n > 8) fail("integer of " + std::to_string(n) + " bytes");
      std::string b = bytes(n);
      uint64_t v = 0;
      for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[i]);
      if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) v |= ~uint64_t(0) << (8 * n);
      stack_.push_back(make(static_cast<int64_t>(v)));
      return;
    }
    case 'G': {  // BINFLOAT: big-endian double
      std::string b = bytes(8);
      uint64_t bits = 0;
      for (char c : b) bits = (bits << 8) | static_cast<uint8_t>(c);
      double d;
      std::memcpy(&d, &bits, 8);
      stack_.push_back(make(d));
      return;
    }
    case 'X':
      stack_.push_back(make(bytes(le<uint32_t>())));
      return;
    case 0x8c:
      stack_.push_back(make(bytes(u8())));
      return;
    case 0x8d:
      stack_.push_back(make(bytes(le<uint64_t>())));
      return;
    case 'B':
      stack_.push_back(make(bytes(le<uint32_t>())));
      return;
    case 'C':
      stack_.push_back(make(bytes(u8())));
      return;
    case ')':
      stack_.push_back(make(Tuple{}));
      return;
    case 't':
      stack_.push_back(make(Tuple{pop_mark()}));
      return;
    case 0x85: {
      auto a = pop();
      stack_.push_back(make(Tuple{{a}}));
      return;
    }
    case 0x86: {
      auto b = pop(), a = pop();
      stack_.push_back(make(Tuple{{a, b}}));
      return;
    }
    case 0x87: {
      auto c = pop(), b = pop(), a = pop();
      stack_.push_back(make(Tuple{{a, b, c}}));
      return;
    }
    case ']':
      stack_.push_back(make(List{}));
      return;
    case 'l':
      stack_.push_back(make(List{pop_mark()}));
      return;
    case 'a': {
      auto v = pop();
      append_items(top(), {v});
      return;
    }
    case 'e': {
      auto items = pop_mark();
      append_items(top(), std::move(items));
      return;
    }
    case '}':
      stack_.push_back(make(Dict{}));
      return;
    case 'd': {
      auto kv = pop_mark();
      auto d = make(Dict{});
      set_items(d, kv);
      stack_.push_back(d);
      return;
    }
    case 's': {
      auto v = pop(), k = pop();
      set_items(top(), {k, v});
      return;
    }
    case 'u': {
      auto kv = pop_mark();
      set_items(top(), kv);
      return;
    }
    case 'q':
      memo_put(u8());
      return;
    case 'r':
      memo_put(le<uint32_t>());
      return;
    case 0x94:
      memo_put(memo_.size());
      return;  // MEMOIZE
    case 'h':
      stack_.push_back(memo_get(u8()));
      return;
    case 'j':
      stack_.push_back(memo_get(le<uint32_t>()));
      return;
    case 'c': {
      std::string module = line();
      std::string name = line();
      push_global(std::move(module), std::move(name));
      return;
    }
    case 0x93: {  // STACK_GLOBAL
      auto name = pop(), module = pop();
      auto* m = std::get_if<std::string>(&module->v);
      auto* n = std::get_if<std::string>(&name->v);
      if (!m || !n) fail("STACK_GLOBAL of non-strings");
      push_global(*m, *n);
      return;
    }
    case 'R': {
      auto args = pop(), callable = pop();
      stack_.push_back(reduce(callable, args));
      return;
    }
    case 'b': {  // BUILD: only an OrderedDict's attributes (a state dict's _metadata), dropped
      pop();
      if (!std::holds_alternative<Dict>(top()->v)) fail("BUILD on something not a dict");
      return;
    }
    case 'Q': {
      auto pid = pop();
      stack_.push_back(persistent_load(pid));
      return;
    }
    default:
      break;
  }
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  fail(std::string("refuses opcode ") + hex + " (not one torch.save emits for a state dict)");
}

}  // namespace

ValuePtr unpickle(std::span<const std::byte> data, const std::string& where) {
  return Unpickler(data, where).run();
}

}  // namespace ember::record::pytorch
