#pragma once
// Saving and loading optimizer state and scheduler positions (Burn's optimizer records): each
// parameter's state tensors keyed by its ParamId, through any recorder of record/ (.ember, .json,
// .safetensors). A loaded optimizer continues the saved trajectory bit for bit (full precision).
//
//   optim::save(adam, "adam.ember");
//   optim::load(adam, "adam.ember");                 // into a copy, swapped in on success
//   optim::save_scheduler(scheduler, "lr.json");
//   optim::load_scheduler(scheduler, "lr.json");
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "optim/ada_grad.h"
#include "optim/adam.h"
#include "optim/adamw.h"
#include "optim/lion.h"
#include "optim/muon.h"
#include "optim/optimizer.h"
#include "optim/rms_prop.h"
#include "optim/scheduler/lr_scheduler.h"
#include "optim/scheduler/reduce_on_plateau.h"
#include "optim/sgd.h"
#include "record/recorder.h"
#include "record/tensor_io.h"

namespace ember::optim {

// The fields of each rule's State: each(state, f) calls f(name, field) with a RawTensor,
// std::optional<RawTensor> or int64_t. A new rule's State gets a specialisation here.
template <class State>
struct StateFields;

template <>
struct StateFields<SgdRule::State> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("velocity", s.velocity);
  }
};
template <>
struct StateFields<detail::AdamMoments> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("m", s.m);
    f("v", s.v);
    f("v_max", s.v_max);
    f("t", s.t);
  }
};
template <>
struct StateFields<AdaGradRule::State> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("sum", s.sum);
    f("t", s.t);
  }
};
template <>
struct StateFields<LionRule::State> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("m", s.m);
  }
};
template <>
struct StateFields<MuonRule::State> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("m", s.m);
  }
};
template <>
struct StateFields<RmsPropRule::State> {
  template <class S, class F>
  static void each(S& s, F&& f) {
    f("square_avg", s.square_avg);
    f("grad_avg", s.grad_avg);
    f("buffer", s.buffer);
  }
};

namespace detail {

inline std::string state_key(ParamId id, const char* field) { return id.to_string() + "." + field; }

// Splits "<16 hex digits>.<field>"; throws naming `file` otherwise.
std::pair<ParamId, std::string> parse_state_key(const std::string& file, const std::string& key);
// The one-element i64 tensor holding a counter, and back (throws naming `file` and the key).
TensorData counter_data(int64_t v);
int64_t counter_value(const std::string& file, const record::Entry& e);
// The ids listed in the record's ember.optimizer.params (throws naming `file` when malformed).
std::vector<ParamId> parse_state_ids(const std::string& file, const record::Record& r);
// A state tensor's host data: stored in half precision, back to f32 (optimizer state is f32).
TensorData state_data(const record::Entry& e);
// Throws naming `file` when the record holds another optimizer's state.
void check_optimizer_name(const std::string& file, const record::Record& r, const char* rule);

}  // namespace detail

// Every state tensor, by "<ParamId>.<field>", kind state; counters as one-element i64 tensors.
template <class Rule>
record::Record to_record(const Optimizer<Rule>& optimizer) {
  record::Record r;
  r.metadata["ember.optimizer"] = Rule::kName;
  std::string ids;  // every parameter with state, even state without tensors (plain Sgd)
  for (const auto& [id, state] : optimizer.states()) {
    if (!ids.empty()) ids += ',';
    ids += id.to_string();
    StateFields<typename Rule::State>::each(state, [&](const char* name, const auto& field) {
      using F = std::decay_t<decltype(field)>;
      std::optional<TensorData> data;
      if constexpr (std::same_as<F, int64_t>) {
        data = detail::counter_data(field);
      } else if constexpr (std::same_as<F, RawTensor>) {
        if (field.defined()) data = field.to_data();
      } else {
        if (field && field->defined()) data = field->to_data();
      }
      if (data) {
        r.entries.emplace_back(detail::state_key(id, name), std::move(*data), id.value(),
                               record::EntryKind::state);
      }
    });
  }
  r.metadata["ember.optimizer.params"] = ids;
  return r;
}

// The per-parameter states of a record written by to_record for the same rule, on `device`.
template <class Rule>
std::unordered_map<ParamId, typename Rule::State> states_from_record(const record::Record& r,
                                                                     const std::string& file,
                                                                     const Device& device) {
  using State = typename Rule::State;
  detail::check_optimizer_name(file, r, Rule::kName);
  std::unordered_map<ParamId, std::map<std::string, const record::Entry*>> by_id;
  for (ParamId id : detail::parse_state_ids(file, r)) by_id[id];
  for (const record::Entry& e : r.entries) {
    auto [id, field] = detail::parse_state_key(file, e.path);
    by_id[id][field] = &e;
  }
  std::unordered_map<ParamId, State> out;
  for (auto& [id, fields] : by_id) {
    State s{};
    StateFields<State>::each(s, [&](const char* name, auto& field) {
      auto it = fields.find(name);
      if (it == fields.end()) return;
      using F = std::decay_t<decltype(field)>;
      if constexpr (std::same_as<F, int64_t>) {
        field = detail::counter_value(file, *it->second);
      } else {
        field = record::upload(detail::state_data(*it->second), device);
      }
      fields.erase(it);
    });
    if (!fields.empty()) {
      throw Error("optim: loading '" + file + "': '" + fields.begin()->second->path +
                  "' is not a field of " + Rule::kName + "'s state");
    }
    out.emplace(id, std::move(s));
  }
  return out;
}

template <class Rule>
void save(const Optimizer<Rule>& optimizer, const std::string& path,
          const record::SaveOptions& options = {}) {
  record::Record r = to_record(optimizer);
  for (const auto& [k, v] : options.metadata) r.metadata[k] = v;
  record::save(r, path, options);
}

// Replaces the optimizer's state with the file's (on options.device, else the default device;
// states follow their parameters at the next step). Everything is read and checked first: on an
// error (naming the file) the optimizer keeps its state.
template <class Rule>
void load(Optimizer<Rule>& optimizer, const std::string& path,
          const record::LoadOptions& options = {}) {
  const Device device = options.device.value_or(Device::default_device());
  optimizer.load_states(states_from_record<Rule>(record::load(path, options), path, device));
}

// A scheduler's position (state()) as a small JSON file, written atomically, and back.
void save_scheduler(const LrScheduler& scheduler, const std::string& path);
void load_scheduler(LrScheduler& scheduler, const std::string& path);
void save_scheduler(const ReduceLrOnPlateau& scheduler, const std::string& path);
void load_scheduler(ReduceLrOnPlateau& scheduler, const std::string& path);

}  // namespace ember::optim
