// Byte and text inputs the grader makes itself (from a seed) or reads from the project's own
// files, for the labs whose samples are bytes: byte histograms and letter histograms.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace grader {

// Every byte value 0..255 equally likely.
std::vector<unsigned char> random_bytes(std::size_t count, std::uint64_t seed);

// Text that looks like prose but has every trap a letter histogram can fall into: lower and upper
// case words, digits, punctuation, the characters just outside 'a'..'z' ('`' and '{'), newlines,
// and UTF-8 sequences (bytes >= 128).
std::vector<unsigned char> generated_text(std::size_t count, std::uint64_t seed);

// The bytes of every regular file in `folder` whose name ends in `extension`, in name order,
// concatenated. Throws std::runtime_error naming the folder when it holds no such file.
std::vector<unsigned char> read_text_files(const std::string& folder, const std::string& extension);

}  // namespace grader
