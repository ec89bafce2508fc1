// Lab 06 - histogram equalization. Handout: handouts/06-histogram-equalization.md.
// Reference solution: `diff starter/X solutions/X` (X = this file's name) is the answer key.
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
// Helpers for Q2.1 with Q2.3's layout: s_lane_bins is this lane's copy, s_bins + lane.
constexpr int kBinCopies = kWarpSize;

__device__ void count_four_pixels(unsigned* s_lane_bins, unsigned word) {
  atomicAdd(&s_lane_bins[(word & 0xffu) * kBinCopies], 1u);
  atomicAdd(&s_lane_bins[((word >> 8) & 0xffu) * kBinCopies], 1u);
  atomicAdd(&s_lane_bins[((word >> 16) & 0xffu) * kBinCopies], 1u);
  atomicAdd(&s_lane_bins[(word >> 24) * kBinCopies], 1u);
}

__device__ void count_sixteen_pixels(unsigned* s_lane_bins, const uint4& pixels) {
  count_four_pixels(s_lane_bins, pixels.x);
  count_four_pixels(s_lane_bins, pixels.y);
  count_four_pixels(s_lane_bins, pixels.z);
  count_four_pixels(s_lane_bins, pixels.w);
}

__global__ void histogram_kernel(const std::uint8_t* d_pixels, int n, unsigned* d_bins) {
  // TODO(Q2.1): lab 03's privatized histogram for 256 levels: zero __shared__ unsigned
  // s_bins[kGrayLevels] (the block may have fewer than 256 threads), barrier; a grid-stride loop
  // over the pixels, read four at a time as uchar4 or, faster, sixteen as uint4 (d_pixels is 16-byte
  // aligned), each counted with atomicAdd on s_bins; the last n % 4 (or n % 16) pixels by the first
  // threads of the grid; barrier; add each non-zero private bin to d_bins (about 20 lines).
  // TODO(Q2.3, stretch): one copy of the bins per lane, s_bins[level * 32 + lane], 32 KiB per block.
  // Both at once: lane l's copy of level v is in bank l, so a warp's lanes never meet in a bank;
  // with one copy about 3.5 lanes share the busiest bank on random pixels (lab 04).
  __shared__ unsigned s_bins[kGrayLevels * kBinCopies];  // 32 KiB
  for (int b = threadIdx.x; b < kGrayLevels * kBinCopies; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarpSize;
  unsigned* s_lane_bins = s_bins + lane;
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int scalar_begin = 0;
  // Two uint4 per trip, both loaded before the first atomic. Should d_pixels not be 16-byte
  // aligned, every pixel goes through the scalar loop below (otherwise only the last n % 16).
  if (reinterpret_cast<std::uintptr_t>(d_pixels) % alignof(uint4) == 0) {  // else all scalar
    const int vectors = n / 16;
    const uint4* d_vectors = reinterpret_cast<const uint4*>(d_pixels);
    for (; i + stride < vectors; i += 2 * stride) {
      const uint4 first = d_vectors[i];
      const uint4 second = d_vectors[i + stride];
      count_sixteen_pixels(s_lane_bins, first);
      count_sixteen_pixels(s_lane_bins, second);
    }
    if (i < vectors) count_sixteen_pixels(s_lane_bins, d_vectors[i]);
    scalar_begin = 16 * vectors;
  }
  for (int p = scalar_begin + blockIdx.x * blockDim.x + threadIdx.x; p < n; p += stride) {
    atomicAdd(&s_lane_bins[d_pixels[p] * kBinCopies], 1u);
  }
  __syncthreads();
  // Thread b adds up the 32 copies of level b starting from copy `lane`, so that the lanes of a
  // warp read 32 different banks at every step.
  for (int b = threadIdx.x; b < kGrayLevels; b += blockDim.x) {
    unsigned total = 0;
    for (int c = 0; c < kBinCopies; ++c) total += s_bins[b * kBinCopies + (c + lane) % kBinCopies];
    if (total != 0) atomicAdd(&d_bins[b], total);
  }
}

// ---- stage 2: CDF -------------------------------------------------------------------------------
[[maybe_unused]] __device__ unsigned warp_inclusive_scan(unsigned value) {
  // TODO(Q3.1): lab 05's warp scan, for unsigned values (about 6 lines).
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const unsigned before = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += before;
  }
  return value;
}

// 256 threads, one bin each: lab 05's block scan from warp scans, turned exclusive by subtracting
// each thread's own bin; the last thread also writes the total.
__global__ void __launch_bounds__(kGrayLevels)
    cdf_kernel(const unsigned* d_bins, unsigned* d_cdf) {
  // TODO(Q3.2): thread t holds bin t; scan within the warps, then the 8 warp totals (one warp),
  // then add the totals of the warps before. Store the exclusive scan (the inclusive one minus
  // the thread's own bin) in d_cdf[t], and the total in d_cdf[256] (about 18 lines).
  __shared__ unsigned warp_totals[kGrayLevels / kWarpSize];
  const int t = threadIdx.x;
  const int lane = t % kWarpSize;
  const int warp = t / kWarpSize;
  const unsigned count = d_bins[t];
  unsigned inclusive = warp_inclusive_scan(count);
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    constexpr int kWarps = kGrayLevels / kWarpSize;
    const unsigned total = warp_inclusive_scan(lane < kWarps ? warp_totals[lane] : 0u);
    if (lane < kWarps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) inclusive += warp_totals[warp - 1];
  d_cdf[t] = inclusive - count;
  if (t == kGrayLevels - 1) d_cdf[kGrayLevels] = inclusive;
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
  __shared__ unsigned s_c_min;
  const int v = threadIdx.x;
  const unsigned long long c = d_cdf[v + 1];
  if (v == 0) s_c_min = 0;
  __syncthreads();
  if (d_cdf[v] == 0 && c > 0) s_c_min = static_cast<unsigned>(c);
  __syncthreads();
  const unsigned long long c_min = s_c_min;
  const unsigned long long spread = d_cdf[kGrayLevels] - c_min;
  unsigned level;
  if (spread == 0) {
    level = v;  // one gray level (or no pixel): nothing to spread, keep the image as it is
  } else if (c < c_min) {
    level = 0;  // below the darkest level present: no pixel uses this entry
  } else {
    level = static_cast<unsigned>((2 * 255 * (c - c_min) + spread) / (2 * spread));  // round half up
  }
  d_lut[v] = static_cast<std::uint8_t>(level);
}

// ---- stage 4: remap -----------------------------------------------------------------------------
// The table is read once per pixel: from shared memory, not from global memory through the cache.
__global__ void __launch_bounds__(kRemapThreads)
    remap_kernel(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut,
                 std::uint8_t* d_out) {
  // TODO(Q5.1): copy the table into __shared__ std::uint8_t s_lut[kGrayLevels], barrier; then a
  // grid-stride loop over the pixels four at a time (uchar4 in, uchar4 out), each through s_lut;
  // the last n % 4 pixels by the first threads of the grid (about 14 lines).
  // SLOW VARIANT: no shared copy of the table: every pixel reads its entry from global memory,
  // four scattered one-byte loads per uchar4 through the L1 cache, where the reference reads
  // the table from global memory once per block and then from shared memory.
  const int words = n / 4;
  const uchar4* in = reinterpret_cast<const uchar4*>(d_pixels);
  uchar4* out = reinterpret_cast<uchar4*>(d_out);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int w = first; w < words; w += stride) {
    const uchar4 p = in[w];
    out[w] = make_uchar4(d_lut[p.x], d_lut[p.y], d_lut[p.z], d_lut[p.w]);
  }
  if (first < n % 4) d_out[4 * words + first] = d_lut[d_pixels[4 * words + first]];
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
  histogram_256(d_in, n, workspace.d_bins, fastest_histogram_launch(sm_count));
  cdf_exclusive_scan(workspace.d_bins, workspace.d_cdf);
  build_lut(workspace.d_cdf, workspace.d_lut);
  remap(d_in, n, workspace.d_lut, d_out);
}

// TODO(Q2.2): the launch your histogram was fastest with (lab 03's sweep, or time it here).
// Enough blocks to fill every SM a few times over; each merges its 256 bins once.
HistogramLaunch fastest_histogram_launch(int sm_count) { return {4 * sm_count, 512}; }

}  // namespace lab06
