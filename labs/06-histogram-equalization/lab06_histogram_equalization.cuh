// Lab 06 - capstone: histogram equalization of an 8-bit grayscale image. What the grader calls in
// starter/lab06_histogram_equalization.cu.
//
// Stages, in the order of handouts/06-histogram-equalization.md:
//   histogram_256       the 256-bin histogram, privatized in shared memory        (lab 03's technique)
//   cdf_exclusive_scan  exclusive scan of the bins into the 257-entry CDF          (lab 05's technique)
//   build_lut           the lookup table: each gray level's equalized level
//   remap               every pixel through the table
//   equalize            the four stages in a row
// The exact definitions, rounding included, are in grader/core/equalization_reference.hpp: with
// N pixels, cdf[v] = pixels darker than v (cdf[256] = N), c(v) = cdf[v+1], c_min = the first non-zero
// c(v), lut[v] = round_half_up(255 * (c(v) - c_min) / (N - c_min)), 0 below the darkest level, and
// lut[v] = v when the image has one gray level only.
//
// An image is width * height bytes, row after row with no padding, so every stage sees n pixels in
// a flat array. Device pointers come from cudaMalloc: aligned for 4- and 16-byte accesses.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace lab06 {

constexpr int kGrayLevels = 256;
constexpr int kCdfEntries = kGrayLevels + 1;

struct HistogramLaunch {
  int blocks;
  int threads_per_block;
};

// d_bins[0..256): how many of d_pixels[0..n) have each level, whatever d_bins held before.
void histogram_256(const std::uint8_t* d_pixels, int n, unsigned* d_bins, HistogramLaunch launch);
// d_cdf[0..257): d_cdf[v] = d_bins[0] + ... + d_bins[v-1]; d_cdf[0] = 0, d_cdf[256] = the total.
void cdf_exclusive_scan(const unsigned* d_bins, unsigned* d_cdf);
// d_lut[0..256) from d_cdf[0..257), with the rounding above.
void build_lut(const unsigned* d_cdf, std::uint8_t* d_lut);
// d_out[i] = d_lut[d_pixels[i]] for i in [0, n).
void remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out);

// Device memory the pipeline keeps its intermediate results in (allocated by the caller).
struct Workspace {
  unsigned* d_bins;     // kGrayLevels
  unsigned* d_cdf;      // kCdfEntries
  std::uint8_t* d_lut;  // kGrayLevels
};

// The whole pipeline: d_out = the equalized image of d_in. Leaves each stage's result in the
// workspace, so the grader can tell which stage went wrong.
void equalize(const std::uint8_t* d_in, int width, int height, std::uint8_t* d_out,
              Workspace workspace);

// The histogram launch the pipeline uses (handout question 2.2).
HistogramLaunch fastest_histogram_launch(int sm_count);

}  // namespace lab06
