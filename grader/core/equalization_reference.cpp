#include "grader/core/equalization_reference.hpp"

namespace grader {

std::vector<unsigned> cpu_gray_histogram(const std::vector<std::uint8_t>& pixels) {
  std::vector<unsigned> bins(kGrayLevels, 0);
  for (std::uint8_t p : pixels) ++bins[p];
  return bins;
}

std::vector<unsigned> cpu_exclusive_cdf(const std::vector<unsigned>& histogram) {
  std::vector<unsigned> cdf(histogram.size() + 1, 0);
  for (std::size_t v = 0; v < histogram.size(); ++v) cdf[v + 1] = cdf[v] + histogram[v];
  return cdf;
}

std::vector<std::uint8_t> cpu_equalization_lut(const std::vector<unsigned>& cdf) {
  std::vector<std::uint8_t> lut(kGrayLevels);
  const std::uint64_t total = cdf[kGrayLevels];
  std::uint64_t c_min = 0;
  for (int v = 0; v < kGrayLevels && c_min == 0; ++v) c_min = cdf[v + 1];
  const std::uint64_t spread = total - c_min;
  for (int v = 0; v < kGrayLevels; ++v) {
    const std::uint64_t c = cdf[v + 1];
    if (spread == 0) {
      lut[v] = static_cast<std::uint8_t>(v);
    } else if (c < c_min) {
      lut[v] = 0;
    } else {
      lut[v] = static_cast<std::uint8_t>((2 * 255 * (c - c_min) + spread) / (2 * spread));
    }
  }
  return lut;
}

std::vector<std::uint8_t> cpu_remap(const std::vector<std::uint8_t>& pixels,
                                    const std::vector<std::uint8_t>& lut) {
  std::vector<std::uint8_t> out(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) out[i] = lut[pixels[i]];
  return out;
}

std::vector<std::uint8_t> cpu_equalize(const std::vector<std::uint8_t>& pixels) {
  return cpu_remap(pixels, cpu_equalization_lut(cpu_exclusive_cdf(cpu_gray_histogram(pixels))));
}

}  // namespace grader
