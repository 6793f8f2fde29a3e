// Truncated and corrupted files: every fixture and a file of each format Ember writes, cut at many
// lengths and with bytes flipped at many offsets, either loads or throws ember::Error naming the
// file; never another exception, a crash or an absurd allocation.
#include <gtest/gtest.h>

#include "record/pytorch/pickle.h"
#include "record/pytorch/zip_archive.h"
#include "tests/record/test_util.h"

namespace ember::record {
namespace {

using namespace testing;

struct Outcome {
  int loaded = 0, errors = 0;
};

// Loads `path` and reads every tensor's bytes; counts the outcome. Any exception but ember::Error
// (std::bad_alloc from an absurd size, a JSON library exception) fails the test.
void try_load(const std::string& path, Format format, Outcome& out, const std::string& what) {
  try {
    LoadOptions options;
    options.format = format;
    Record r = load(path, options);
    uint64_t sum = 0;
    for (const Entry& e : r.entries) {
      for (std::byte b : e.bytes()) sum += static_cast<uint8_t>(b);
      (void)e.to_data();
    }
    (void)sum;
    ++out.loaded;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": " << e.what();
    ++out.errors;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not an ember::Error: " << e.what();
  }
}

// At most about `n` positions in [0, size): every one for small files.
std::vector<size_t> positions(size_t size, size_t n) {
  std::vector<size_t> out;
  const size_t step = std::max<size_t>(1, size / n);
  for (size_t p = 0; p < size; p += step) out.push_back(p);
  return out;
}

Outcome fuzz(const std::string& source, Format format, const ScratchDir& dir) {
  const std::vector<char> bytes = read_bytes(source);
  const std::string path = dir.path("fuzzed");
  Outcome out;
  for (size_t len : positions(bytes.size(), 120)) {
    write_bytes(path, std::vector<char>(bytes.begin(), bytes.begin() + len));
    try_load(path, format, out, source + " cut to " + std::to_string(len));
  }
  for (size_t at : positions(bytes.size(), 120)) {
    for (char mask : {char(0xff), char(0x01), char(0x40)}) {
      std::vector<char> flipped = bytes;
      flipped[at] ^= mask;
      write_bytes(path, flipped);
      try_load(path, format, out, source + " byte " + std::to_string(at) + " flipped");
    }
  }
  return out;
}

TEST(Fuzz, FixturesTruncatedOrFlippedGiveOnlyCleanErrors) {
  ScratchDir dir;
  for (const char* name : {"dtypes.safetensors", "mlp_io.safetensors", "dtypes.pt", "mlp.pt",
                           "cnn.pt", "resnet18_w2.pt"}) {
    SCOPED_TRACE(name);
    const Format f = std::string(name).ends_with(".pt") ? Format::pytorch : Format::safetensors;
    Outcome o = fuzz(fixture(name), f, dir);
    // Every truncation short of the whole file is an error.
    EXPECT_GE(o.errors, 100) << name;
  }
}

TEST(Fuzz, EmberFilesTruncatedOrFlippedGiveOnlyCleanErrors) {
  ScratchDir dir;
  Zoo zoo = randomized(make_zoo());
  SaveOptions compressed;
  compressed.compress = true;
  nn::save(zoo, dir.path("zoo.ember"));
  nn::save(zoo, dir.path("zoo_z.ember"), compressed);
  nn::save(zoo, dir.path("zoo.json"));
  nn::save(zoo, dir.path("zoo.safetensors"));
  for (const char* name : {"zoo.ember", "zoo_z.ember"}) {
    Outcome o = fuzz(dir.path(name), Format::native, dir);
    // Checksums catch every flip of the data and the header's checks most of the rest (a flip
    // inside a path or a metadata string still loads: the file is consistent).
    EXPECT_GE(o.errors, 400) << name;
  }
  fuzz(dir.path("zoo.json"), Format::json, dir);
  fuzz(dir.path("zoo.safetensors"), Format::safetensors, dir);
}

TEST(Fuzz, AbsurdShapesAreRefusedBeforeAllocating) {
  ScratchDir dir;
  // A safetensors header claiming a 2^46-element tensor over 4 bytes of data.
  std::string header = R"({"w":{"dtype":"F32","shape":[65536,65536,16384],"data_offsets":[0,4]}})";
  std::vector<char> file(8);
  const uint64_t n = header.size();
  std::memcpy(file.data(), &n, 8);
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), 4, '\0');
  write_bytes(dir.path("absurd.safetensors"), file);
  expect_error([&] { load(dir.path("absurd.safetensors")); }, {"absurd.safetensors", "'w'"});
  // A header length past the end of the file.
  std::vector<char> lying(16, '\0');
  const uint64_t big = uint64_t(1) << 40;
  std::memcpy(lying.data(), &big, 8);
  write_bytes(dir.path("lying.safetensors"), lying);
  expect_error([&] { load(dir.path("lying.safetensors")); },
               {"lying.safetensors", "header length"});
}

TEST(Fuzz, CorruptFileLeavesTheModuleAsItWas) {
  ScratchDir dir;
  nn::Linear saved = randomized(nn::LinearConfig(8, 8).init(dev()));
  nn::save(saved, dir.path("m.ember"));
  std::vector<char> bytes = read_bytes(dir.path("m.ember"));
  // The bias is the last tensor: 32 bytes at the last 64-byte boundary, then padding.
  bytes[bytes.size() - 64 + 5] ^= 0x10;
  write_bytes(dir.path("m.ember"), bytes);
  nn::Linear model = randomized(nn::LinearConfig(8, 8).init(dev()));
  const auto before = flatten(model);
  expect_error([&] { model = nn::load(model, dir.path("m.ember")); },
               {"m.ember", "'bias'", "checksum"});
  const auto after = flatten(model);
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].id, after[i].id);
    EXPECT_TRUE(before[i].data == after[i].data);
  }
}

TEST(NativeFormat, HeaderLayoutAndNewerVersionsRefused) {
  ScratchDir dir;
  nn::Linear m = randomized(nn::LinearConfig(3, 5).init(dev()));
  nn::save(m, dir.path("m.ember"));
  std::vector<char> bytes = read_bytes(dir.path("m.ember"));
  ASSERT_GT(bytes.size(), 24u);
  EXPECT_EQ(std::string(bytes.data(), 8), "EMBERREC");
  uint32_t version;
  uint64_t header_len;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&header_len, bytes.data() + 16, 8);
  EXPECT_EQ(version, 1u);
  // Header, padding to 64, then the weight (60 bytes) padded to 64 and the bias (20 bytes).
  const uint64_t data_start = (24 + header_len + 63) / 64 * 64;
  EXPECT_EQ(bytes.size(), data_start + 64 + 64);
  std::vector<float> w(15);
  std::memcpy(w.data(), bytes.data() + data_start, 60);
  EXPECT_EQ(TensorData(w, Shape{3, 5}), m.weight.val().to_data());
  bytes[8] = 2;
  write_bytes(dir.path("m.ember"), bytes);
  expect_error([&] { load(dir.path("m.ember")); }, {"m.ember", "format version 2", "newer"});
}

// The zip's CRC catches flips of a .pt's pickle before the unpickler sees them: here the
// unpickler itself gets every truncation and many flips of torch.save's pickles.
TEST(Fuzz, PicklesTruncatedOrFlippedGiveOnlyCleanErrors) {
  for (const char* name : {"dtypes.pt", "cnn.pt", "resnet18_w2.pt"}) {
    pytorch::ZipArchive zip(fixture(name));
    std::string pkl_name;
    for (const auto& n : zip.names()) {
      if (n.ends_with("/data.pkl")) pkl_name = n;
    }
    const std::vector<std::byte> pkl = zip.read(pkl_name);
    int loaded = 0, errors = 0;
    auto attempt = [&](std::span<const std::byte> bytes) {
      try {
        pytorch::unpickle(bytes, name);
        ++loaded;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        ++errors;
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << ": not an ember::Error: " << e.what();
      }
    };
    attempt(pkl);
    EXPECT_EQ(loaded, 1) << name;
    for (size_t len = 0; len < pkl.size(); len += std::max<size_t>(1, pkl.size() / 500)) {
      attempt(std::span<const std::byte>(pkl.data(), len));
    }
    for (size_t at = 0; at < pkl.size(); at += std::max<size_t>(1, pkl.size() / 500)) {
      for (uint8_t mask : {0xff, 0x01, 0x20}) {
        std::vector<std::byte> flipped = pkl;
        flipped[at] ^= std::byte(mask);
        attempt(flipped);
      }
    }
    EXPECT_GT(errors, 500) << name;
  }
}

}  // namespace
}  // namespace ember::record
