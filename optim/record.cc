#include "optim/record.h"

#include "record/file_io.h"

namespace ember::optim {

namespace detail {

std::pair<ParamId, std::string> parse_state_key(const std::string& file, const std::string& key) {
  const auto dot = key.find('.');
  bool ok = dot == 16 && dot + 1 < key.size();
  uint64_t v = 0;
  for (size_t i = 0; ok && i < 16; ++i) {
    const char c = key[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    ok = d >= 0;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  if (!ok) {
    throw Error("optim: loading '" + file + "': '" + key +
                "' is not an optimizer state key (<ParamId>.<field>)");
  }
  return {ParamId::from_value(v), key.substr(dot + 1)};
}

std::vector<ParamId> parse_state_ids(const std::string& file, const record::Record& r) {
  std::vector<ParamId> out;
  auto it = r.metadata.find("ember.optimizer.params");
  if (it == r.metadata.end() || it->second.empty()) return out;
  size_t start = 0;
  while (start <= it->second.size()) {
    size_t end = it->second.find(',', start);
    if (end == std::string::npos) end = it->second.size();
    out.push_back(parse_state_key(file, it->second.substr(start, end - start) + ".id").first);
    start = end + 1;
  }
  return out;
}

TensorData state_data(const record::Entry& e) {
  const bool half = e.dtype() == DType::F16 || e.dtype() == DType::BF16;
  return e.to_data(half ? DType::F32 : e.dtype());
}

TensorData counter_data(int64_t v) { return TensorData(std::vector<int64_t>{v}); }

int64_t counter_value(const std::string& file, const record::Entry& e) {
  if (e.shape() != Shape{1} || is_float(e.dtype()) || is_bool(e.dtype())) {
    throw Error("optim: loading '" + file + "': counter '" + e.path +
                "' is not a one-element integer tensor");
  }
  const int64_t v = e.to_data().to_vec<int64_t>()[0];
  if (v < 0) throw Error("optim: loading '" + file + "': counter '" + e.path + "' is negative");
  return v;
}

void check_optimizer_name(const std::string& file, const record::Record& r, const char* rule) {
  auto it = r.metadata.find("ember.optimizer");
  if (it == r.metadata.end()) {
    throw Error("optim: '" + file + "' holds no optimizer state (no ember.optimizer metadata)");
  }
  if (it->second != rule) {
    throw Error("optim: '" + file + "' holds " + it->second + " state, not " + rule);
  }
}

}  // namespace detail

namespace {

void write_state(const nlohmann::json& state, const char* kind, const std::string& path) {
  const std::string text = nlohmann::json{{"scheduler", kind}, {"state", state}}.dump(2) + "\n";
  record::AtomicFileWriter out(path);
  out.write(text.data(), text.size());
  out.commit();
}

nlohmann::json read_state(const std::string& path, const char* kind) {
  auto file = record::MappedFile::open(path);
  auto bytes = file->bytes();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(reinterpret_cast<const char*>(bytes.data()),
                              reinterpret_cast<const char*>(bytes.data()) + bytes.size());
  } catch (const nlohmann::json::exception& e) {
    throw Error("optim: scheduler state '" + path + "' is not JSON: " + e.what());
  }
  if (!j.is_object() || j.value("scheduler", "") != kind || !j.contains("state")) {
    throw Error("optim: '" + path + "' holds no " + kind + " state");
  }
  return j["state"];
}

template <class S>
void load_checked(S& scheduler, const std::string& path, const char* kind) {
  const nlohmann::json state = read_state(path, kind);
  try {
    scheduler.load_state(state);
  } catch (const Error& e) {
    throw Error("optim: loading '" + path + "': " + e.what());
  }
}

}  // namespace

void save_scheduler(const LrScheduler& scheduler, const std::string& path) {
  write_state(scheduler.state(), "LrScheduler", path);
}

void load_scheduler(LrScheduler& scheduler, const std::string& path) {
  load_checked(scheduler, path, "LrScheduler");
}

void save_scheduler(const ReduceLrOnPlateau& scheduler, const std::string& path) {
  write_state(scheduler.state(), "ReduceLrOnPlateau", path);
}

void load_scheduler(ReduceLrOnPlateau& scheduler, const std::string& path) {
  load_checked(scheduler, path, "ReduceLrOnPlateau");
}

}  // namespace ember::optim
