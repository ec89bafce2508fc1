// Lab 06 - histogram equalization: reference solution. Handout: handouts/06-histogram-equalization.md.
//
//   stage 1 histogram_256       private bins per block, one copy per lane, merged once (labs 03, 04)
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
// Each block counts into private bins in shared memory, where atomics are cheap, and adds them to
// the global bins once at the end. The private bins are bank-aware (lab 04): 32 copies of the 256
// bins, one per lane, interleaved so that lane l's copy of level v is s_bins[v * 32 + l], always in
// bank l. The lanes of a warp then never meet in a bank, whatever the pixels; with a single copy,
// 32 random levels fall on about 3.5 lanes per bank at worst, and every shared atomic waits for that
// (H200 benchmark, 2^27 random bytes: 65 % of the read bandwidth with one copy, 89 % with 32).
// Pixels are read sixteen at a time (one 16-byte uint4), two uint4 per trip, both loaded before
// the first atomic; the last n % 16 pixels, or all of them if d_pixels is not 16-byte aligned,
// one at a time.
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
  __shared__ unsigned s_bins[kGrayLevels * kBinCopies];  // 32 KiB
  for (int b = threadIdx.x; b < kGrayLevels * kBinCopies; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarpSize;
  unsigned* s_lane_bins = s_bins + lane;
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int scalar_begin = 0;
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
  __shared__ std::uint8_t s_lut[kGrayLevels];
  for (int v = threadIdx.x; v < kGrayLevels; v += blockDim.x) s_lut[v] = d_lut[v];
  __syncthreads();
  const int words = n / 4;
  const uchar4* in = reinterpret_cast<const uchar4*>(d_pixels);
  uchar4* out = reinterpret_cast<uchar4*>(d_out);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int w = first; w < words; w += stride) {
    const uchar4 p = in[w];
    out[w] = make_uchar4(s_lut[p.x], s_lut[p.y], s_lut[p.z], s_lut[p.w]);
  }
  if (first < n % 4) d_out[4 * words + first] = s_lut[d_pixels[4 * words + first]];
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
  histogram_256(d_in, n, workspace.d_bins, fastest_histogram_launch(sm_count));
  cdf_exclusive_scan(workspace.d_bins, workspace.d_cdf);
  build_lut(workspace.d_cdf, workspace.d_lut);
  remap(d_in, n, workspace.d_lut, d_out);
}

// Enough blocks to fill every SM a few times over; each merges its 256 bins once.
HistogramLaunch fastest_histogram_launch(int sm_count) { return {4 * sm_count, 512}; }

}  // namespace lab06
