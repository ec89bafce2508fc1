// 8-bit images on the host: PGM in and out (the format the image labs read and write), PNG out (so
// a result can be looked at in any viewer). PNG is written with stored deflate blocks: no zlib.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // row by row, width * height bytes
};

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // row by row, 3 bytes a pixel
};

class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Binary (P5) or plain (P2) PGM with a maximum value up to 255 (other maxima are rescaled to
// 0..255, 16-bit files included). Throws ImageError saying what is wrong with the file.
GrayImage read_pgm(const std::string& path);
GrayImage parse_pgm(const std::vector<std::uint8_t>& bytes, const std::string& name);
void write_pgm(const std::string& path, const GrayImage& image);

std::vector<std::uint8_t> encode_png(const GrayImage& image);
std::vector<std::uint8_t> encode_png(const RgbImage& image);
void write_png(const std::string& path, const GrayImage& image);
void write_png(const std::string& path, const RgbImage& image);

// CRC-32 of PNG chunks and Adler-32 of zlib streams, exposed for the unit tests.
std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0);
std::uint32_t adler32(const std::uint8_t* data, std::size_t size);

}  // namespace grader
