// The CPU reference for histogram equalization of 8-bit images, stage by stage, with the rounding
// the GPU version must reproduce exactly:
//   h[v]        number of pixels of gray level v                          (256 entries)
//   cdf[v]      number of pixels darker than v: the exclusive scan of h   (257 entries, cdf[256] = N)
//   c(v)        = cdf[v + 1], the pixels at level v or darker (the inclusive CDF)
//   c_min       = c at the darkest level present (the first non-zero c)
//   lut[v]      = round_half_up(255 * (c(v) - c_min) / (N - c_min)) for levels with c(v) >= c_min,
//                 0 for the absent levels below the darkest one, and lut[v] = v for every v when the
//                 image has a single gray level (N == c_min: nothing to spread)
//   out[i]      = lut[in[i]]
// round_half_up(a / b) is computed in 64-bit integers as (2a + b) / (2b), so no floating point
// rounding can make two correct implementations disagree.
#pragma once
#include <cstdint>
#include <vector>

namespace grader {

constexpr int kGrayLevels = 256;

std::vector<unsigned> cpu_gray_histogram(const std::vector<std::uint8_t>& pixels);
std::vector<unsigned> cpu_exclusive_cdf(const std::vector<unsigned>& histogram);  // 257 entries
std::vector<std::uint8_t> cpu_equalization_lut(const std::vector<unsigned>& cdf);  // 256 entries
std::vector<std::uint8_t> cpu_remap(const std::vector<std::uint8_t>& pixels,
                                    const std::vector<std::uint8_t>& lut);
// All four stages.
std::vector<std::uint8_t> cpu_equalize(const std::vector<std::uint8_t>& pixels);

}  // namespace grader
