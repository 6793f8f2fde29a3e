// Reading event files back (tests, tools): the TFRecord frames with their CRCs, and the scalar
// fields of each Event.
#include <cstring>
#include <fstream>
#include <iterator>

#include "ir/error.h"
#include "train/event_file.h"

namespace ember::train {

namespace {

struct Cursor {
  const std::string& bytes;
  size_t pos = 0;
  const std::string& file;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("read_scalar_events: " + file + ": " + what + " at offset " + std::to_string(pos));
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= bytes.size()) fail("truncated varint");
      const auto b = static_cast<unsigned char>(bytes[pos++]);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint too long");
  }
  template <class T>
  T fixed() {
    if (pos + sizeof(T) > bytes.size()) fail("truncated field");
    T v;
    std::memcpy(&v, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string bytes_field() {
    const uint64_t n = varint();
    if (pos + n > bytes.size()) fail("truncated field");
    std::string s = bytes.substr(pos, n);
    pos += n;
    return s;
  }
  void skip(int wire_type) {
    switch (wire_type) {
      case 0:
        varint();
        break;
      case 1:
        fixed<uint64_t>();
        break;
      case 2:
        bytes_field();
        break;
      case 5:
        fixed<uint32_t>();
        break;
      default:
        fail("unknown wire type " + std::to_string(wire_type));
    }
  }
  bool done() const { return pos >= bytes.size(); }
};

// Summary.Value { tag = 1; simple_value = 2 } -> (tag, value); false when not a simple value.
bool parse_value(const std::string& bytes, const std::string& file, ScalarEvent& out) {
  Cursor c{bytes, 0, file};
  bool has_value = false;
  while (!c.done()) {
    const uint64_t key = c.varint();
    if (key == (1 << 3 | 2)) {
      out.tag = c.bytes_field();
    } else if (key == (2 << 3 | 5)) {
      out.value = c.fixed<float>();
      has_value = true;
    } else {
      c.skip(static_cast<int>(key & 7));
    }
  }
  return has_value;
}

void parse_event(const std::string& bytes, const std::string& file, std::vector<ScalarEvent>& out) {
  Cursor c{bytes, 0, file};
  ScalarEvent base;
  std::vector<std::string> values;
  while (!c.done()) {
    const uint64_t key = c.varint();
    if (key == (1 << 3 | 1)) {
      base.wall_time = c.fixed<double>();
    } else if (key == (2 << 3 | 0)) {
      base.step = static_cast<int64_t>(c.varint());
    } else if (key == (5 << 3 | 2)) {
      const std::string summary = c.bytes_field();
      Cursor sc{summary, 0, file};
      while (!sc.done()) {
        const uint64_t k = sc.varint();
        if (k == (1 << 3 | 2)) {
          values.push_back(sc.bytes_field());
        } else {
          sc.skip(static_cast<int>(k & 7));
        }
      }
    } else {
      c.skip(static_cast<int>(key & 7));
    }
  }
  for (const auto& v : values) {
    ScalarEvent e = base;
    if (parse_value(v, file, e)) out.push_back(e);
  }
}

}  // namespace

std::vector<ScalarEvent> read_scalar_events(const std::string& path, int64_t* records) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("read_scalar_events: cannot open " + path);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<ScalarEvent> events;
  size_t pos = 0;
  int64_t count = 0;
  while (pos < bytes.size()) {
    auto at = [&](size_t offset, const char* what) {
      return Error("read_scalar_events: " + path + ": " + what + " of the record at offset " +
                   std::to_string(offset));
    };
    if (pos + 12 > bytes.size()) throw at(pos, "truncated header");
    uint64_t length;
    uint32_t length_crc, data_crc;
    std::memcpy(&length, bytes.data() + pos, 8);
    std::memcpy(&length_crc, bytes.data() + pos + 8, 4);
    if (masked_crc32c(&length, 8) != length_crc) throw at(pos, "length CRC mismatch");
    if (pos + 12 + length + 4 > bytes.size()) throw at(pos, "truncated data");
    const std::string record = bytes.substr(pos + 12, length);
    std::memcpy(&data_crc, bytes.data() + pos + 12 + length, 4);
    if (masked_crc32c(record.data(), record.size()) != data_crc) throw at(pos, "data CRC mismatch");
    parse_event(record, path, events);
    pos += 12 + length + 4;
    ++count;
  }
  if (records) *records = count;
  return events;
}

}  // namespace ember::train
