// The CPU answers the scan labs are compared with, and the inputs they are fed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace grader {

// Inclusive scan restarted every `segment` elements (0 = one segment over the whole array): with a
// segment of 1024 it is what a block-local scan of 1024-element tiles must produce. Sums are taken
// modulo 2^32 and read back as int32, as the GPU's int addition wraps.
std::vector<int> cpu_inclusive_scan(const std::vector<int>& values, std::size_t segment = 0);

// Values drawn uniformly from [low, high], from a seed.
std::vector<int> uniform_values(std::size_t count, int low, int high, std::uint64_t seed);

}  // namespace grader
