#include "grader/core/samples_file.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace grader {
namespace {

std::string regenerate_hint(const std::string& path) {
  return "Regenerate it with `python3 data/generate.py --output " + path +
         "` (or delete it and run `meson compile -C BUILD_DIR`).";
}

int little_endian_int32(const unsigned char* bytes) {
  const std::uint32_t word = std::uint32_t(bytes[0]) | std::uint32_t(bytes[1]) << 8 |
                             std::uint32_t(bytes[2]) << 16 | std::uint32_t(bytes[3]) << 24;
  int value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}

}  // namespace

std::vector<int> load_samples_file(const std::string& path, int num_bins, std::size_t max_count) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw DataError("samples file " + path + " not found or unreadable. " + regenerate_hint(path));
  const auto file_bytes = static_cast<std::size_t>(file.tellg());
  if (file_bytes % 4 != 0) {
    std::ostringstream text;
    text << "samples file " << path << " is " << file_bytes
         << " bytes, not a whole number of 4-byte int32 samples: it is truncated or not a samples "
            "file. "
         << regenerate_hint(path);
    throw DataError(text.str());
  }
  const std::size_t count = std::min(file_bytes / 4, max_count);
  std::vector<unsigned char> raw(count * 4);
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()))) {
    throw DataError("could not read " + path + ". " + regenerate_hint(path));
  }
  std::vector<int> samples(count);
  for (std::size_t i = 0; i < count; ++i) {
    samples[i] = little_endian_int32(&raw[4 * i]);
    if (samples[i] < 0 || samples[i] >= num_bins) {
      std::ostringstream text;
      text << "samples file " << path << ": sample " << i << " is " << samples[i]
           << ", outside the lab's range [0, " << num_bins << "). Was it generated for another "
           << "number of bins? " << regenerate_hint(path);
      throw DataError(text.str());
    }
  }
  return samples;
}

}  // namespace grader
