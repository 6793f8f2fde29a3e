#pragma once
// Image files for the vision datasets: PNG through libpng, JPEG through libjpeg-turbo, told
// apart by their first bytes (not the file name). Pixels are 8-bit, row-major, channels last.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::data {

struct Image {
  int64_t height = 0, width = 0, channels = 0;  // channels: 1 (gray), 3 (RGB) or 4 (RGBA)
  std::vector<uint8_t> pixels;                  // height * width * channels

  uint8_t at(int64_t y, int64_t x, int64_t c) const {
    return pixels[(y * width + x) * channels + c];
  }
};

// Decodes a PNG or JPEG file into `channels` channels (1, 3 or 4; 0 keeps the file's: gray stays
// 1, colour 3, colour with alpha 4; JPEG has no alpha, so 4 from a JPEG is opaque RGBA).
// Throws ember::Error naming the file when it is missing, unreadable, of another format, or
// corrupt.
Image read_image(const std::string& path, int channels = 0);
// Decodes PNG or JPEG bytes; `name` is what errors call them.
Image decode_image(const std::vector<uint8_t>& bytes, const std::string& name, int channels = 0);

// Encodes to a temporary name and renames it to `path`. JPEG takes 1 or 3 channels; `quality`
// is 1..100 (4:2:0 chroma subsampling for colour). Throws ember::Error naming the file.
void write_png(const std::string& path, const Image& image);
void write_jpeg(const std::string& path, const Image& image, int quality = 90);

}  // namespace ember::data
