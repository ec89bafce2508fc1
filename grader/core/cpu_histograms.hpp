// CPU answers for the histograms that are not lab 01's "int samples into int bins": unsigned bins
// of unsigned values, of bytes, of letters grouped into bins, and capped (saturated) bins.
#pragma once
#include <vector>

namespace grader {

// Counts of each value in [0, num_bins); larger values are ignored.
std::vector<unsigned int> cpu_value_histogram(const std::vector<unsigned int>& values, int num_bins);

// 256 bins, one per byte value.
std::vector<unsigned int> cpu_byte_histogram(const std::vector<unsigned char>& bytes);

// Lower-case letters 'a'..'z' only, `letters_per_bin` consecutive letters to a bin:
// ceil(26 / letters_per_bin) bins (4 letters a bin: a-d, e-h, ..., y-z = 7 bins). Every other byte
// (upper case, digits, bytes >= 128) is ignored.
std::vector<unsigned int> cpu_letter_histogram(const std::vector<unsigned char>& text,
                                               int letters_per_bin);

// Each bin becomes min(bin, cap).
std::vector<unsigned int> cpu_saturate(std::vector<unsigned int> bins, unsigned int cap);

}  // namespace grader
