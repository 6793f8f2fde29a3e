#include "data/image.h"

#include <png.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "ir/error.h"

namespace ember::data {
namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error("read_image: cannot open " + path);
  std::vector<uint8_t> bytes(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw Error("read_image: error reading " + path);
  return bytes;
}

// Writes `bytes` under a temporary name in the same directory, then renames it into place.
void write_bytes(const std::string& path, const void* data, size_t size, const char* who) {
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush()) {
      std::filesystem::remove(tmp);
      throw Error(std::string(who) + ": cannot write " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error(std::string(who) + ": cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
}

void check_channels(int channels, const std::string& name) {
  if (channels < 0 || channels == 2 || channels > 4) {
    throw Error("read_image: " + name + ": channels must be 0, 1, 3 or 4, not " +
                std::to_string(channels));
  }
}

bool is_png(const std::vector<uint8_t>& b) {
  return b.size() >= 8 && png_sig_cmp(b.data(), 0, 8) == 0;
}
bool is_jpeg(const std::vector<uint8_t>& b) {
  return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
}

png_uint_32 png_format(int channels) {
  return channels == 1 ? PNG_FORMAT_GRAY : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
}

Image decode_png(const std::vector<uint8_t>& bytes, const std::string& name, int channels) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()) == 0) {
    throw Error("read_image: " + name + ": bad PNG: " + png.message);
  }
  if (channels == 0) {
    const bool colour = (png.format & PNG_FORMAT_FLAG_COLOR) != 0;
    const bool alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    channels = alpha && colour ? 4 : colour ? 3 : 1;
  }
  png.format = png_format(channels);
  Image img{png.height, png.width, channels, {}};
  img.pixels.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, img.pixels.data(), 0, nullptr) == 0) {
    std::string msg = png.message;
    png_image_free(&png);
    throw Error("read_image: " + name + ": bad PNG: " + msg);
  }
  return img;
}

// One TurboJPEG handle per thread and kind, made on first use (loader workers decode at once).
// A handle that failed is replaced: libjpeg-turbo 2.1 rejects the next image given to it.
using TjHandle = std::unique_ptr<void, int (*)(tjhandle)>;
TjHandle& decompressor() {
  thread_local TjHandle h(tjInitDecompress(), tjDestroy);
  return h;
}
TjHandle& compressor() {
  thread_local TjHandle h(tjInitCompress(), tjDestroy);
  return h;
}

[[noreturn]] void jpeg_failed(TjHandle& handle, tjhandle (*init)(), const std::string& message) {
  handle.reset(init());
  throw Error(message);
}

Image decode_jpeg(const std::vector<uint8_t>& bytes, const std::string& name, int channels) {
  TjHandle& handle = decompressor();
  tjhandle tj = handle.get();
  if (tj == nullptr) throw Error("read_image: " + name + ": cannot start libjpeg-turbo");
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, bytes.data(), bytes.size(), &width, &height, &subsamp, &colorspace) !=
      0) {
    jpeg_failed(handle, tjInitDecompress,
                "read_image: " + name + ": bad JPEG: " + tjGetErrorStr2(tj));
  }
  if (channels == 0) channels = colorspace == TJCS_GRAY ? 1 : 3;
  const int format = channels == 1 ? TJPF_GRAY : channels == 3 ? TJPF_RGB : TJPF_RGBA;
  Image img{height, width, channels, {}};
  img.pixels.resize(static_cast<size_t>(height) * width * channels);
  // A warning (a truncated file, say) is an error too: the image would be partly grey.
  if (tjDecompress2(tj, bytes.data(), bytes.size(), img.pixels.data(), width, 0, height, format,
                    TJFLAG_ACCURATEDCT) != 0) {
    jpeg_failed(handle, tjInitDecompress,
                "read_image: " + name + ": bad JPEG: " + tjGetErrorStr2(tj));
  }
  return img;
}

}  // namespace

Image decode_image(const std::vector<uint8_t>& bytes, const std::string& name, int channels) {
  check_channels(channels, name);
  if (is_png(bytes)) return decode_png(bytes, name, channels);
  if (is_jpeg(bytes)) return decode_jpeg(bytes, name, channels);
  throw Error("read_image: " + name + " is neither PNG nor JPEG (" + std::to_string(bytes.size()) +
              " bytes)");
}

Image read_image(const std::string& path, int channels) {
  return decode_image(read_bytes(path), path, channels);
}

void check_image(const Image& image, const std::string& path, const char* who) {
  if (image.height <= 0 || image.width <= 0 ||
      image.pixels.size() != static_cast<size_t>(image.height * image.width * image.channels)) {
    throw Error(std::string(who) + ": " + path + ": the pixels do not fill a " +
                std::to_string(image.height) + "x" + std::to_string(image.width) + "x" +
                std::to_string(image.channels) + " image");
  }
}

void write_png(const std::string& path, const Image& image) {
  check_image(image, path, "write_png");
  check_channels(static_cast<int>(image.channels), path);
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = png_format(static_cast<int>(image.channels));
  png_alloc_size_t size = 0;
  if (png_image_write_get_memory_size(png, size, 0, image.pixels.data(), 0, nullptr) == 0) {
    throw Error("write_png: " + path + ": " + png.message);
  }
  std::vector<uint8_t> out(size);
  if (png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels.data(), 0, nullptr) == 0) {
    throw Error("write_png: " + path + ": " + png.message);
  }
  write_bytes(path, out.data(), size, "write_png");
}

void write_jpeg(const std::string& path, const Image& image, int quality) {
  check_image(image, path, "write_jpeg");
  if (image.channels != 1 && image.channels != 3) {
    throw Error("write_jpeg: " + path + ": JPEG takes 1 or 3 channels, not " +
                std::to_string(image.channels));
  }
  TjHandle& handle = compressor();
  tjhandle tj = handle.get();
  if (tj == nullptr) throw Error("write_jpeg: " + path + ": cannot start libjpeg-turbo");
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const bool gray = image.channels == 1;
  if (tjCompress2(tj, image.pixels.data(), static_cast<int>(image.width), 0,
                  static_cast<int>(image.height), gray ? TJPF_GRAY : TJPF_RGB, &jpeg, &size,
                  gray ? TJSAMP_GRAY : TJSAMP_420, quality, TJFLAG_ACCURATEDCT) != 0) {
    tjFree(jpeg);
    jpeg_failed(handle, tjInitCompress, "write_jpeg: " + path + ": " + tjGetErrorStr2(tj));
  }
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(jpeg, tjFree);
  write_bytes(path, jpeg, size, "write_jpeg");
}

}  // namespace ember::data
