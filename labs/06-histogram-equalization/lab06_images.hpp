// Lab 06's images: the real one (yours, or one a package on this machine ships) and the adversarial
// ones the grader makes itself. Shared by the tests and the lab06-equalize tool.
#pragma once
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "grader/core/image_io.hpp"
#include "grader/core/keyed_stream.hpp"
#include "lab06_config.hpp"

namespace lab06_images {

struct Found {
  bool found = false;
  grader::GrayImage image;
  std::string name;    // where it came from
  std::string reason;  // why none was found
};

inline bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// PGM is read directly; PNG goes through lab06_image.py (Python's zlib) into a temporary PGM.
inline grader::GrayImage load(const std::string& path) {
  std::string lower = path;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!ends_with(lower, ".png")) return grader::read_pgm(path);
  const std::string pgm = path + ".converted.pgm";
  const std::string command = std::string("\"") + lab06_config::kPython + "\" \"" +
                              lab06_config::kImageScript + "\" to-pgm \"" + path + "\" \"" + pgm + "\"";
  if (std::system(command.c_str()) != 0) {
    throw grader::ImageError("could not convert " + path + " to PGM (" + command + ")");
  }
  grader::GrayImage image = grader::read_pgm(pgm);
  std::remove(pgm.c_str());
  return image;
}

// LAB06_IMAGE=path (PGM or PNG) first, else the sample image this build found.
inline Found real_image() {
  Found result;
  if (const char* user = std::getenv("LAB06_IMAGE"); user != nullptr && user[0] != '\0') {
    result.image = load(user);
    result.name = user;
    result.found = true;
    return result;
  }
  try {
    grader::GrayImage image = grader::read_pgm(lab06_config::kSampleImage);
    result.image = std::move(image);
    result.name = lab06_config::kSampleImage;
    result.found = true;
  } catch (const grader::ImageError&) {
    result.reason = std::string("no real image: the build could read neither scikit-image's moon "
                                "nor the lab's own labs/06-histogram-equalization/images/camera.pgm "
                                "(see ") +
                    lab06_config::kSampleImage + ".txt). Restore that file (git checkout), or set "
                    "LAB06_IMAGE=/path/to/photo.pgm (or .png); then delete " +
                    lab06_config::kSampleImage + " and rebuild";
  }
  return result;
}

// ---- adversarial images ---------------------------------------------------------------------------
inline grader::GrayImage filled(int width, int height, std::uint8_t level) {
  return {width, height, std::vector<std::uint8_t>(std::size_t(width) * height, level)};
}

// Two levels in a checkerboard of `low` and `high`.
inline grader::GrayImage two_levels(int width, int height, std::uint8_t low, std::uint8_t high) {
  grader::GrayImage image = filled(width, height, low);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if ((x + y) % 2) image.pixels[std::size_t(y) * width + x] = high;
    }
  }
  return image;
}

// Every level from 0 to 255, left to right, repeated over the rows.
inline grader::GrayImage full_range(int width, int height) {
  grader::GrayImage image = filled(width, height, 0);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    image.pixels[i] = static_cast<std::uint8_t>((i % width) * 256 / width);
  }
  return image;
}

// What equalization is for: a dim, washed-out picture. Levels cluster around `mean` (a smooth
// gradient plus noise), so most of 0..255 is unused.
inline grader::GrayImage low_contrast(int width, int height, int mean, int spread, std::uint64_t seed) {
  grader::GrayImage image = filled(width, height, 0);
  grader::KeyedStream engine(seed);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int gradient = (x + y) * spread / (width + height);
      const int noise = static_cast<int>(engine() % 9) - 4;
      int level = mean - spread / 2 + gradient + noise;
      level = level < 0 ? 0 : level > 255 ? 255 : level;
      image.pixels[std::size_t(y) * width + x] = static_cast<std::uint8_t>(level);
    }
  }
  return image;
}

inline grader::GrayImage noise(int width, int height, std::uint64_t seed) {
  grader::GrayImage image = filled(width, height, 0);
  grader::KeyedStream engine(seed);
  for (std::uint8_t& p : image.pixels) p = static_cast<std::uint8_t>(engine());
  return image;
}

}  // namespace lab06_images
