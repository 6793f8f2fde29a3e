#include "train/event_file.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "ir/error.h"

namespace ember::train {

namespace {

constexpr std::array<uint32_t, 256> make_crc32c_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;  // reflected poly
    table[i] = c;
  }
  return table;
}
constexpr auto kCrc32cTable = make_crc32c_table();

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Protobuf wire format: varints, tags, and length-delimited fields.
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_tag(std::string& out, int field, int wire_type) {
  put_varint(out, static_cast<uint64_t>(field << 3 | wire_type));
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_tag(out, field, 2);
  put_varint(out, bytes.size());
  out += bytes;
}
template <class T>
void put_fixed(std::string& out, int field, T value) {
  put_tag(out, field, sizeof(T) == 8 ? 1 : 5);
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));  // little-endian host, as the wire format
  out.append(raw, sizeof(T));
}

// tensorflow.Event { double wall_time = 1; int64 step = 2; string file_version = 3;
//                    Summary summary = 5; }
// Summary { repeated Value value = 1; }  Value { string tag = 1; float simple_value = 2; }
std::string event_header(double wall_time, int64_t step) {
  std::string e;
  put_fixed(e, 1, wall_time);
  put_tag(e, 2, 0);
  put_varint(e, static_cast<uint64_t>(step));
  return e;
}

std::string scalar_event(const std::string& tag, float value, int64_t step, double wall_time) {
  std::string v;
  put_bytes(v, 1, tag);
  put_fixed(v, 2, value);
  std::string summary;
  put_bytes(summary, 1, v);
  std::string e = event_header(wall_time, step);
  put_bytes(e, 5, summary);
  return e;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

}  // namespace

uint32_t crc32c(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = kCrc32cTable[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t c = crc32c(data, size);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

EventFileWriter::EventFileWriter(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const double wall = now_seconds();
  path_ = dir + "/events.out.tfevents." + std::to_string(static_cast<int64_t>(wall)) + "." +
          host_name();
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("EventFileWriter: cannot create " + path_);
  std::string version = event_header(wall, 0);
  put_bytes(version, 3, "brain.Event:2");
  write_record(version);
}

void EventFileWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  write_record(scalar_event(tag, static_cast<float>(value), step, now_seconds()));
}

void EventFileWriter::write_record(const std::string& record) {
  const uint64_t length = record.size();
  const uint32_t length_crc = masked_crc32c(&length, sizeof length);
  const uint32_t data_crc = masked_crc32c(record.data(), record.size());
  out_.write(reinterpret_cast<const char*>(&length), sizeof length);
  out_.write(reinterpret_cast<const char*>(&length_crc), sizeof length_crc);
  out_.write(record.data(), static_cast<std::streamsize>(record.size()));
  out_.write(reinterpret_cast<const char*>(&data_crc), sizeof data_crc);
  out_.flush();
  if (!out_) throw Error("EventFileWriter: writing " + path_ + " failed");
}

}  // namespace ember::train
