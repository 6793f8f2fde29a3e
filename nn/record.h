#pragma once
// Saving and loading modules (Burn's Record/Recorder for modules): the visitor's Params and Buffers
// by path, with their ParamIds, through any recorder of record/. Loading maps a copy of the module,
// so a failed load leaves the module as it was, and it never initialises a lazy parameter that the
// file gives a value.
//
//   nn::save(model, "model.ember");                       // .ember, .json, .safetensors
//   Mlp restored = nn::load(MlpConfig(...).init(dev), "model.ember");
//   Net net = nn::load(NetConfig().init(dev), "net.pt");  // PyTorch state dict (Linear adapter)
#include <optional>
#include <string>
#include <vector>

#include "nn/module_ops.h"
#include "record/match.h"
#include "record/prefetch.h"
#include "record/recorder.h"

namespace ember::nn {

namespace detail {

// walk() that also tells f the owning module's name and the field's name.
template <class Node, class F>
void walk_owned(Node& node, const std::string& path, const char* owner, const char* field, F& f) {
  using N = std::remove_const_t<Node>;
  if constexpr (is_param_v<N> || is_buffer_v<N>) {
    if (node.defined()) f(path, owner, field, node);
  } else if constexpr (Module<N>) {
    N::for_each_field(node, [&](const auto& name, auto& sub) {
      walk_owned(sub, join_path(path, name), N::module_name(), name, f);
    });
  } else if constexpr (is_optional_v<N>) {
    if (node) walk_owned(*node, path, owner, field, f);
  } else if constexpr (is_vector_v<N>) {
    for (size_t i = 0; i < node.size(); ++i) {
      walk_owned(node[i], join_path(path, std::to_string(i)), owner, field, f);
    }
  }
}

// The dtype an entry becomes: the tensor's own, or its kind's default while still lazy (asking a
// lazy parameter its dtype would initialise it).
template <class P>
DType record_dtype(const P& p) {
  if constexpr (is_param_v<P>) {
    using T = std::decay_t<decltype(p.val())>;
    return p.is_initialized() ? p.val().dtype() : T::Kind::kDefault;
  } else {
    return p.value().dtype();
  }
}

}  // namespace detail

// Every Param and Buffer of the module, by path, with its id (lazy parameters are initialised).
template <Module M>
record::Record to_record(const M& module) {
  record::Record r;
  r.metadata["ember.module"] = M::module_name();
  // A tensor whose elements lie in host memory (the CPU device) is written from there: the
  // entry keeps the tensor alive instead of holding a copy.
  auto entry = [&](const std::string& path, const auto& t, uint64_t id, record::EntryKind kind) {
    if (auto bytes = t.host_bytes()) {
      auto owner = std::make_shared<const RawTensor>(t.raw().detached());  // not its tape
      r.entries.emplace_back(path, t.dtype(), t.shape(), *bytes, std::move(owner), id, kind);
    } else {
      r.entries.emplace_back(path, t.to_data(), id, kind);
    }
  };
  visit(module, [&](const std::string& path, const auto& p) {
    if constexpr (is_param_v<std::decay_t<decltype(p)>>) {
      entry(path, p.val(), p.id().value(), record::EntryKind::param);
    } else {
      entry(path, p.value(), p.id().value(), record::EntryKind::buffer);
    }
  });
  return r;
}

// What a load looks for: each Param and Buffer's path, owner, field and shape.
template <Module M>
std::vector<record::Target> record_targets(const M& module) {
  std::vector<record::Target> out;
  auto add = [&](const std::string& path, const char* owner, const char* field, const auto& p) {
    out.push_back({path, owner, field, p.shape()});
  };
  detail::walk_owned(module, std::string(), M::module_name(), "", add);
  return out;
}

// A copy of `module` holding the record's tensors (converted to each tensor's dtype, on its device
// or options.device), with the record's ParamIds where it has them. `source` names the file in
// errors. Throws ember::Error, leaving `module` untouched, when the report shows a problem the
// options do not allow.
template <Module M>
M load_record(const M& module, const record::Record& rec, const std::string& source,
              const record::LoadOptions& options = {}, record::LoadReport* report = nullptr) {
  record::LoadReport local;
  record::LoadReport& rep = report ? *report : local;
  const record::Record remapped = record::remap_keys(source, rec, options.remap);
  auto found = record::match(source, remapped, record_targets(module), options, rep);
  std::vector<DType> dtypes;
  visit(module,
        [&](const std::string&, const auto& p) { dtypes.push_back(detail::record_dtype(p)); });
  record::Prefetcher host(found, std::move(dtypes));
  size_t i = 0;
  return map(module, [&](const std::string&, const auto& p) {
    using P = std::decay_t<decltype(p)>;
    const size_t at = i++;
    const std::optional<record::Entry>& e = found[at];
    if (!e) return p;
    const Device device = options.device.value_or(p.device());
    const ParamId id = e->id ? ParamId::from_value(*e->id) : p.id();
    // A tensor already in its dtype goes from the record's bytes (a mapped file) to the device
    // in one copy; a converted one through the prefetcher's host copy.
    auto tensor = [&]<class V>(std::type_identity<V>) {
      if (host.direct(at)) return V::from_bytes(e->bytes(), e->dtype(), e->shape(), device);
      return V::from_data(host.take(at), device);
    };
    if constexpr (is_param_v<P>) {
      using V = std::decay_t<decltype(p.val())>;
      return P(id, tensor(std::type_identity<V>{}), p.is_require_grad());
    } else {
      using V = std::decay_t<decltype(p.value())>;
      return P(id, tensor(std::type_identity<V>{}));
    }
  });
}

// Saves the module's record to `path` (format from the options or the extension: .ember,
// .json, .safetensors), through a temporary file renamed on success.
template <Module M>
void save(const M& module, const std::string& path, const record::SaveOptions& options = {}) {
  record::Record r = to_record(module);
  for (const auto& [k, v] : options.metadata) r.metadata[k] = v;
  record::save(r, path, options);
}

// The module loaded from `path` (.ember, .json, .safetensors, or a PyTorch .pt/.pth state dict,
// read with the PyTorch adapter unless options.adapter says otherwise): a copy of `module` with
// the file's tensors and ParamIds. Throws ember::Error naming the file, leaving `module` as it
// was. `report`, when given, receives what was loaded, missing, unused or mismatched.
template <Module M>
M load(const M& module, const std::string& path, const record::LoadOptions& options = {},
       record::LoadReport* report = nullptr) {
  record::LoadOptions o = options;
  if (!o.adapter && record::resolve_format(path, o.format) == record::Format::pytorch) {
    o.adapter = record::Adapter::pytorch;
  }
  return load_record(module, record::load(path, o), path, o, report);
}

}  // namespace ember::nn
