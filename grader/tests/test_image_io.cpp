#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "grader/core/image_io.hpp"

#ifdef GRADER_HAVE_ZLIB
#include <zlib.h>
#endif

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

TEST(Pgm, ReadsABinaryFileWithAComment) {
  std::vector<std::uint8_t> file = bytes_of("P5\n# made by hand\n3 2\n255\n");
  file.insert(file.end(), {0, 1, 2, 253, 254, 255});
  const grader::GrayImage image = grader::parse_pgm(file, "t.pgm");
  EXPECT_EQ(image.width, 3);
  EXPECT_EQ(image.height, 2);
  EXPECT_EQ(image.pixels, (std::vector<std::uint8_t>{0, 1, 2, 253, 254, 255}));
}

TEST(Pgm, ReadsAPlainFileAndRescalesItsMaximum) {
  const grader::GrayImage image = grader::parse_pgm(bytes_of("P2 2 1 15 0 15"), "t.pgm");
  EXPECT_EQ(image.pixels, (std::vector<std::uint8_t>{0, 255}));
}

TEST(Pgm, ReadsSixteenBitSamples) {
  std::vector<std::uint8_t> file = bytes_of("P5 2 1 65535\n");
  file.insert(file.end(), {0xff, 0xff, 0x80, 0x00});
  EXPECT_EQ(grader::parse_pgm(file, "t.pgm").pixels, (std::vector<std::uint8_t>{255, 128}));
}

TEST(Pgm, ExplainsATruncatedFile) {
  try {
    grader::parse_pgm(bytes_of("P5 4 4 255\nabc"), "short.pgm");
    FAIL() << "no error";
  } catch (const grader::ImageError& e) {
    EXPECT_NE(std::string(e.what()).find("short.pgm: the file ends before its 16 pixels"),
              std::string::npos) << e.what();
  }
}

TEST(Pgm, RejectsAFileThatIsNoPgm) {
  EXPECT_THROW(grader::parse_pgm(bytes_of("\x89PNG...."), "x.png"), grader::ImageError);
}

TEST(Pgm, SurvivesAWriteAndReadBack) {
  const grader::GrayImage image{3, 1, {7, 8, 9}};
  const std::string path = ::testing::TempDir() + "grader_image_io_test.pgm";
  grader::write_pgm(path, image);
  EXPECT_EQ(grader::read_pgm(path).pixels, image.pixels);
  std::remove(path.c_str());
}

TEST(Checksums, MatchTheirStandardCheckValues) {
  const std::string text = "123456789";
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  EXPECT_EQ(grader::crc32(data, text.size()), 0xCBF43926u);
  EXPECT_EQ(grader::adler32(data, text.size()), 0x091E01DEu);
}

#ifdef GRADER_HAVE_ZLIB
// The IDAT chunk of a one-IDAT PNG, inflated: each row is its filter byte (0) and its pixels.
std::vector<std::uint8_t> inflated_rows(const std::vector<std::uint8_t>& png, std::size_t raw_size) {
  const std::size_t at = 8 + 25;  // the signature, then IHDR's 4 + 4 + 13 + 4 bytes
  const std::size_t length = (std::size_t(png[at]) << 24) | (png[at + 1] << 16) | (png[at + 2] << 8) | png[at + 3];
  EXPECT_EQ(std::string(png.begin() + at + 4, png.begin() + at + 8), "IDAT");
  std::vector<std::uint8_t> raw(raw_size);
  uLongf size = raw_size;
  EXPECT_EQ(uncompress(raw.data(), &size, png.data() + at + 8, length), Z_OK);
  EXPECT_EQ(size, raw_size);
  return raw;
}

TEST(Png, IsCompressedAndHoldsEveryRowExactly) {
  grader::GrayImage flat{512, 512, std::vector<std::uint8_t>(512 * 512, 200)};
  flat.pixels[513] = 7;
  const std::vector<std::uint8_t> png = grader::encode_png(flat);
  EXPECT_LT(png.size(), flat.pixels.size() / 50) << "a flat image must compress";
  const std::vector<std::uint8_t> raw = inflated_rows(png, 513 * 512);
  EXPECT_EQ(raw[0], 0);
  EXPECT_EQ(raw[513], 0);                // row 1's filter byte
  EXPECT_EQ(raw[513 + 1 + 1], 7);        // pixel (1, 1)
  EXPECT_EQ(raw[513 + 1 + 2], 200);
}
#endif

TEST(Png, StartsWithTheSignatureAndAHeaderOfTheRightSize) {
  const std::vector<std::uint8_t> png = grader::encode_png(grader::GrayImage{2, 3, {1, 2, 3, 4, 5, 6}});
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(std::string(png.begin() + 1, png.begin() + 4), "PNG");
  EXPECT_EQ(std::string(png.begin() + 12, png.begin() + 16), "IHDR");
  EXPECT_EQ(png[19], 2);  // width 2
  EXPECT_EQ(png[23], 3);  // height 3
  EXPECT_EQ(png[25], 0);  // color type: gray
  EXPECT_EQ(std::string(png.end() - 8, png.end() - 4), "IEND");
}

#ifndef GRADER_HAVE_ZLIB  // without zlib the rows are stored, uncompressed
TEST(Png, StoresLargeImagesInSeveralDeflateBlocks) {
  // 300 x 300 RGB is 270,300 bytes of rows: five stored blocks of at most 65,535 bytes.
  const grader::RgbImage image{300, 300, std::vector<std::uint8_t>(300 * 300 * 3, 9)};
  const std::vector<std::uint8_t> png = grader::encode_png(image);
  const std::size_t rows = 300 * (300 * 3 + 1);
  EXPECT_EQ(png.size(), 8u + 25 + (12 + 2 + rows + 5 * 5 + 4) + 12);
}
#endif

TEST(Png, RefusesPixelDataOfTheWrongSize) {
  EXPECT_THROW(grader::encode_png(grader::GrayImage{2, 2, {1, 2, 3}}), grader::ImageError);
}

}  // namespace
