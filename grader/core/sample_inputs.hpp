// Inputs the grader makes itself, from a seed, so a submission cannot know them in advance.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace grader {

std::vector<int> uniform_samples(std::size_t count, int num_bins, std::uint64_t seed);
// Rounded and clipped into [0, num_bins).
std::vector<int> normal_samples(std::size_t count, int num_bins, double mean, double stddev,
                                std::uint64_t seed);
std::vector<int> constant_samples(std::size_t count, int value);

}  // namespace grader
