#pragma once
// Helpers of the record tests: a module holding every layer kind with random values, a scratch
// directory, bytewise comparison of two modules and file fixtures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "nn/record.h"
#include "tests/nn/test_util.h"

namespace ember::record::testing {

using nn::testing::dev;
using nn::testing::expect_error;

// Every kind of layer with parameters or state, plus vectors and optionals of modules.
struct Zoo {
  nn::Linear linear;
  nn::Conv1d conv1d;
  nn::Conv2d conv;
  nn::Conv3d conv3d;
  nn::ConvTranspose1d deconv1d;
  nn::ConvTranspose2d deconv;
  nn::ConvTranspose3d deconv3d;
  nn::BatchNorm bn;
  nn::LayerNorm ln;
  nn::GroupNorm gn;
  nn::InstanceNorm in;
  nn::RmsNorm rms;
  nn::Embedding emb;
  nn::PRelu prelu;
  nn::SwiGlu swiglu;
  std::vector<nn::Linear> layers;
  std::optional<nn::Linear> head;
  std::optional<nn::Linear> absent;
  EMBER_MODULE(Zoo, linear, conv1d, conv, conv3d, deconv1d, deconv, deconv3d, bn, ln, gn, in, rms,
               emb, prelu, swiglu, layers, head, absent)
};

inline Zoo make_zoo(const Device& d = dev()) {
  Zoo z;
  z.linear = nn::LinearConfig(5, 3).init(d);
  z.conv1d = nn::Conv1dConfig(2, 3, 3).init(d);
  z.conv = nn::Conv2dConfig({2, 4}, {3, 3}).init(d);
  z.conv3d = nn::Conv3dConfig({1, 2}, {2, 2, 2}).init(d);
  z.deconv1d = nn::ConvTranspose1dConfig({3, 2}, 2).init(d);
  z.deconv = nn::ConvTranspose2dConfig({4, 2}, {2, 2}).init(d);
  z.deconv3d = nn::ConvTranspose3dConfig({2, 1}, {2, 2, 2}).init(d);
  z.bn = nn::BatchNormConfig(4).init(d);
  z.ln = nn::LayerNormConfig(6).init(d);
  z.gn = nn::GroupNormConfig(2, 4).init(d);
  z.in = nn::InstanceNormConfig(3).init(d);
  z.rms = nn::RmsNormConfig(6).init(d);
  z.emb = nn::EmbeddingConfig(7, 3).init(d);
  z.prelu = nn::PReluConfig().init(d);
  z.swiglu = nn::SwiGluConfig(3, 2).init(d);
  z.layers = {nn::LinearConfig(3, 3).init(d), nn::LinearConfig(3, 2).with_bias(false).init(d)};
  z.head = nn::LinearConfig(2, 1).init(d);
  return z;
}

// Every Param and Buffer replaced by random values (so defaults such as ones and zeros cannot make
// a broken round trip pass), ids kept.
template <nn::Module M>
M randomized(const M& m, double scale = 1.0) {
  return nn::map(m, [&](const std::string&, const auto& p) {
    using P = std::decay_t<decltype(p)>;
    if constexpr (nn::is_param_v<P>) {
      using T = std::decay_t<decltype(p.val())>;
      return p.with_value(T::random(p.shape(), Distribution::normal(0, scale), p.device()));
    } else {
      using T = std::decay_t<decltype(p.value())>;
      return p.with_value(T::random(p.shape(), Distribution::uniform(0.5, 2.0), p.device()));
    }
  });
}

struct Flat {
  std::string path;
  uint64_t id;
  bool is_param;
  bool require_grad;
  TensorData data;
};

template <nn::Module M>
std::vector<Flat> flatten(const M& m) {
  std::vector<Flat> out;
  nn::visit(m, [&](const std::string& path, const auto& p) {
    if constexpr (nn::is_param_v<std::decay_t<decltype(p)>>) {
      out.push_back({path, p.id().value(), true, p.is_require_grad(), p.val().to_data()});
    } else {
      out.push_back({path, p.id().value(), false, false, p.value().to_data()});
    }
  });
  return out;
}

// Same paths, ids, flags and bit-identical values.
template <nn::Module M>
void expect_identical(const M& a, const M& b) {
  auto fa = flatten(a), fb = flatten(b);
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t i = 0; i < fa.size(); ++i) {
    EXPECT_EQ(fa[i].path, fb[i].path);
    EXPECT_EQ(fa[i].id, fb[i].id) << fa[i].path;
    EXPECT_EQ(fa[i].is_param, fb[i].is_param) << fa[i].path;
    EXPECT_EQ(fa[i].require_grad, fb[i].require_grad) << fa[i].path;
    EXPECT_TRUE(fa[i].data == fb[i].data) << fa[i].path;
  }
}

// A fresh directory, removed at the end of the test: in /dev/shm where there is one (the fuzz
// tests write thousands of small files; on a busy disk that takes seconds), else under the
// system's temporary directory.
class ScratchDir {
 public:
  static std::filesystem::path base() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) {
      return "/dev/shm";
    }
    return std::filesystem::temp_directory_path();
  }
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = base() / ("ember_record_" + std::string(info->test_suite_name()) + "_" + info->name() +
                     "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      out.push_back(e.path().filename().string());
    }
    return out;
  }

 private:
  std::filesystem::path dir_;
};

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

inline void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The committed fixtures (tests/record/fixtures, made by tests/record/make_fixtures.py).
inline std::string fixture(const std::string& name) {
  return std::string(EMBER_RECORD_FIXTURES) + "/" + name;
}

}  // namespace ember::record::testing
