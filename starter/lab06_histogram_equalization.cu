// Lab 06 - histogram equalization. Handout: handouts/06-histogram-equalization.md.
// Fill in the TODOs; `meson test -C build --suite lab06` grades this file, and
// `meson compile -C build lab06-equalize` shows what it does to a photograph.
//
//   stage 1 histogram_256       private bins in shared memory per block, merged once (lab 03)
//   stage 2 cdf_exclusive_scan  one block of 256 threads: warp shuffles, then the warp totals (lab 05)
//   stage 3 build_lut           one thread per gray level, integer rounding
//   stage 4 remap               the table in shared memory, four pixels per load
//   equalize                    the four stages on the default stream, no host round trip
#include "lab06_histogram_equalization.cuh"

namespace lab06 {
namespace {

[[maybe_unused]] constexpr int kWarpSize = 32;
[[maybe_unused]] constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kRemapThreads = 256;
constexpr int kRemapMaxBlocks = 4096;

// ---- stage 1: histogram -------------------------------------------------------------------------
// Each block counts into its own 256 bins in shared memory, where atomics are cheap, and adds them
// to the global bins once at the end: 256 global atomics per block instead of one per pixel.
// Pixels are read sixteen at a time (one uint4) or four (one uchar4); the rest one at a time.
__global__ void histogram_kernel(const std::uint8_t* d_pixels, int n, unsigned* d_bins) {
  // TODO(Q2.1): lab 03's privatized histogram for 256 levels: zero __shared__ unsigned
  // s_bins[kGrayLevels] (the block may have fewer than 256 threads), barrier; a grid-stride loop
  // over the pixels, read four at a time as uchar4 or, faster, sixteen as uint4 (d_pixels is 16-byte
  // aligned), each counted with atomicAdd on s_bins; the last n % 4 (or n % 16) pixels by the first
  // threads of the grid; barrier; add each non-zero private bin to d_bins (about 20 lines).
  // TODO(Q2.3, stretch): one copy of the bins per lane, s_bins[level * 32 + lane], 32 KiB per block.
}

// ---- stage 2: CDF -------------------------------------------------------------------------------
[[maybe_unused]] __device__ unsigned warp_inclusive_scan(unsigned value) {
  // TODO(Q3.1): lab 05's warp scan, for unsigned values (about 6 lines).
  return value;
}

// 256 threads, one bin each: lab 05's block scan from warp scans, turned exclusive by subtracting
// each thread's own bin; the last thread also writes the total.
__global__ void __launch_bounds__(kGrayLevels)
    cdf_kernel(const unsigned* d_bins, unsigned* d_cdf) {
  // TODO(Q3.2): thread t holds bin t; scan within the warps, then the 8 warp totals (one warp),
  // then add the totals of the warps before. Store the exclusive scan (the inclusive one minus
  // the thread's own bin) in d_cdf[t], and the total in d_cdf[256] (about 18 lines).
}

// ---- stage 3: lookup table ----------------------------------------------------------------------
// Level v's share of the pixels at or below it, stretched over 0..255. The darkest level present is
// the one with nothing darker (cdf[v] == 0) and something at v (cdf[v+1] > 0): exactly one thread
// finds it. 64-bit integers: 255 * N overflows 32 bits from 16.8 million pixels on.
__global__ void __launch_bounds__(kGrayLevels)
    lut_kernel(const unsigned* d_cdf, std::uint8_t* d_lut) {
  // TODO(Q4.1): thread v computes d_lut[v]. Find c_min in a __shared__ variable: exactly one thread
  // sees d_cdf[v] == 0 and d_cdf[v + 1] > 0. Then lut[v] = v when N - c_min is 0, 0 when
  // c(v) < c_min, else (2 * 255 * (c - c_min) + spread) / (2 * spread) in 64-bit integers
  // (about 18 lines).
}

// ---- stage 4: remap -----------------------------------------------------------------------------
// The table is read once per pixel: from shared memory, not from global memory through the cache.
__global__ void __launch_bounds__(kRemapThreads)
    remap_kernel(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut,
                 std::uint8_t* d_out) {
  // TODO(Q5.1): copy the table into __shared__ std::uint8_t s_lut[kGrayLevels], barrier; then a
  // grid-stride loop over the pixels four at a time (uchar4 in, uchar4 out), each through s_lut;
  // the last n % 4 pixels by the first threads of the grid (about 14 lines).
}

}  // namespace

void histogram_256(const std::uint8_t* d_pixels, int n, unsigned* d_bins, HistogramLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kGrayLevels * sizeof(unsigned));
  if (n == 0) return;
  histogram_kernel<<<launch.blocks, launch.threads_per_block>>>(d_pixels, n, d_bins);
}

void cdf_exclusive_scan(const unsigned* d_bins, unsigned* d_cdf) {
  cdf_kernel<<<1, kGrayLevels>>>(d_bins, d_cdf);
}

void build_lut(const unsigned* d_cdf, std::uint8_t* d_lut) {
  lut_kernel<<<1, kGrayLevels>>>(d_cdf, d_lut);
}

void remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  if (n == 0) return;
  const int words = n / 4 > 0 ? n / 4 : 1;
  int blocks = (words + kRemapThreads - 1) / kRemapThreads;
  if (blocks > kRemapMaxBlocks) blocks = kRemapMaxBlocks;
  remap_kernel<<<blocks, kRemapThreads>>>(d_pixels, n, d_lut, d_out);
}

void equalize(const std::uint8_t* d_in, int width, int height, std::uint8_t* d_out,
              Workspace workspace) {
  const int n = width * height;
  int device = 0, sm_count = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  // TODO(Q6.1): the four stages in a row, each from the workspace the previous one filled, on the
  // default stream so each waits for the one before (4 lines).
  (void)n, (void)sm_count, (void)d_in, (void)d_out, (void)workspace;
}

// TODO(Q2.2): the launch your histogram was fastest with (lab 03's sweep, or time it here).
HistogramLaunch fastest_histogram_launch(int sm_count) { return {sm_count, 256}; }

}  // namespace lab06
