#include "grader/core/byte_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "grader/core/keyed_stream.hpp"

namespace grader {

std::vector<unsigned char> random_bytes(std::size_t count, std::uint64_t seed) {
  KeyedStream engine(seed);
  std::vector<unsigned char> bytes(count);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(engine() >> 56);
  return bytes;
}

std::vector<unsigned char> generated_text(std::size_t count, std::uint64_t seed) {
  // Pieces chosen with fixed weights; lower-case words dominate, as in real text.
  static const char* const kWords[] = {"the", "histogram", "of", "letters", "zebra", "quick",
                                       "yard", "waxy", "jovial", "block", "shared", "memory"};
  static const char* const kOthers[] = {"The", "GPU", "CUDA", "2025", "42", ", ", ". ", "\n",
                                        "`", "{", "|", "~", "@", "[", "Z", "A", "\t"};
  static const unsigned char kUtf8[][2] = {{0xC3, 0xA9}, {0xC5, 0x91}, {0xC3, 0x9F}, {0xE2, 0x80}};
  KeyedStream engine(seed);
  std::vector<unsigned char> text;
  text.reserve(count + 16);
  while (text.size() < count) {
    const std::uint64_t pick = engine() % 10;
    if (pick < 6) {
      const char* word = kWords[engine() % std::size(kWords)];
      text.insert(text.end(), word, word + std::char_traits<char>::length(word));
      text.push_back(' ');
    } else if (pick < 9) {
      const char* other = kOthers[engine() % std::size(kOthers)];
      text.insert(text.end(), other, other + std::char_traits<char>::length(other));
    } else {
      const unsigned char* sequence = kUtf8[engine() % std::size(kUtf8)];
      text.insert(text.end(), sequence, sequence + 2);
      text.push_back(static_cast<unsigned char>(0x80 + engine() % 64));  // a continuation byte
    }
  }
  text.resize(count);
  return text;
}

std::vector<unsigned char> read_text_files(const std::string& folder, const std::string& extension) {
  namespace fs = std::filesystem;
  std::vector<fs::path> paths;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() >= extension.size() &&
        name.compare(name.size() - extension.size(), extension.size(), extension) == 0) {
      paths.push_back(entry.path());
    }
  }
  if (paths.empty()) {
    throw std::runtime_error("no *" + extension + " file in " + folder +
                             (error ? " (" + error.message() + ")" : std::string()));
  }
  std::sort(paths.begin(), paths.end());
  std::vector<unsigned char> bytes;
  for (const fs::path& path : paths) {
    std::ifstream in(path, std::ios::binary);
    bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return bytes;
}

}  // namespace grader
