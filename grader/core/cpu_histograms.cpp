#include "grader/core/cpu_histograms.hpp"

#include <algorithm>

namespace grader {

std::vector<unsigned int> cpu_value_histogram(const std::vector<unsigned int>& values, int num_bins) {
  std::vector<unsigned int> bins(static_cast<std::size_t>(num_bins), 0);
  for (unsigned int v : values) {
    if (v < static_cast<unsigned int>(num_bins)) ++bins[v];
  }
  return bins;
}

std::vector<unsigned int> cpu_byte_histogram(const std::vector<unsigned char>& bytes) {
  std::vector<unsigned int> bins(256, 0);
  for (unsigned char b : bytes) ++bins[b];
  return bins;
}

std::vector<unsigned int> cpu_letter_histogram(const std::vector<unsigned char>& text,
                                               int letters_per_bin) {
  constexpr int kLetters = 26;
  const int num_bins = (kLetters + letters_per_bin - 1) / letters_per_bin;
  std::vector<unsigned int> bins(static_cast<std::size_t>(num_bins), 0);
  for (unsigned char c : text) {
    if (c >= 'a' && c <= 'z') ++bins[static_cast<std::size_t>((c - 'a') / letters_per_bin)];
  }
  return bins;
}

std::vector<unsigned int> cpu_saturate(std::vector<unsigned int> bins, unsigned int cap) {
  for (unsigned int& b : bins) b = std::min(b, cap);
  return bins;
}

}  // namespace grader
