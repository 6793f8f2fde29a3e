#pragma once
// PyTorch fixtures of the sequence-model tests (made by tests/nn/fixtures/make_seq_fixtures.py):
// named tensors read from a small JSON file, and modules whose parameters are set from them.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/nn/test_util.h"

namespace ember::nn::testing {

class Fixture {
 public:
  explicit Fixture(const std::string& name)
      : json_(detail::parse_json(
            detail::read_text_file(std::string(EMBER_NN_FIXTURE_DIR) + "/" + name + ".json",
                                   "fixture"),
            "fixture")) {}

  std::vector<double> values(const std::string& name) const {
    return at(name)["data"].get<std::vector<double>>();
  }
  Shape shape(const std::string& name) const {
    return Shape(at(name)["shape"].get<std::vector<int64_t>>());
  }
  template <int D>
  Tensor<D> tensor(const std::string& name) const {
    return from_host<D>(values(name), shape(name));
  }
  template <int D>
  Tensor<D, Bool> mask(const std::string& name) const {
    return tensor<D>(name).bool_();
  }
  // m with every parameter replaced by the fixture's tensor at prefix + its path, where `rename`
  // maps Ember's path to the fixture's.
  template <Module M, class Rename>
  M load(const M& m, Rename&& rename) const {
    return map_params(m, [&](const std::string& path, const auto& p) {
      using T = std::decay_t<decltype(p.val())>;
      const std::string name = rename(path);
      EXPECT_EQ(shape(name), p.shape()) << name;
      return p.with_value(tensor<T::kRank>(name));
    });
  }
  template <Module M>
  M load(const M& m) const {
    return load(m, [](const std::string& path) { return path; });
  }

 private:
  const nlohmann::json& at(const std::string& name) const {
    if (!json_.contains(name)) throw Error("fixture lacks " + name);
    return json_[name];
  }
  nlohmann::json json_;
};

}  // namespace ember::nn::testing
