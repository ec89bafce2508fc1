// The benchmark's inputs, generated in C++ from fixed seeds with the grader's own generators.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace bench {

enum class Distribution { kUniform, kNormal, kAllEqual };
constexpr std::array<Distribution, 3> kDistributions = {
    Distribution::kUniform, Distribution::kNormal, Distribution::kAllEqual};

// "uniform", "normal(500, 30)", "all equal"; bytes say "normal(128, 30)".
std::string distribution_name(Distribution d, bool bytes = false);

// `count` int samples in [0, bins): uniform; normal(500, 30) rounded and clipped; all 500.
std::vector<int> int_samples(Distribution d, std::size_t count, int bins);

// `count` bytes: uniform over 0..255; normal(128, 30) rounded and clipped; all 'e' (so the letter
// histogram sees one letter).
std::vector<unsigned char> byte_samples(Distribution d, std::size_t count);

}  // namespace bench
