// Lab 06 stages that are wrong on purpose: the grader must catch each one (meson suite `selftest`).
// Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty               no stage writes anything
//   2 racy_shared_bins    the private bins are incremented without atomics (lost updates on a GPU)
//   3 truncates           the table rounds down instead of half up
//   4 overflows_32_bits   255 * (c - c_min) is computed in 32 bits
//   5 inclusive_cdf       the CDF holds the inclusive scan: cdf[v] counts level v itself
//   6 remap_tail          remap skips the last n % 4 pixels
//   7 c_min_zero          the table forgets to subtract c_min: the darkest level does not go to 0
//   8 one_level_to_black  an image of one gray level becomes black instead of staying as it is
//   9 global_atomics      right answers, but every pixel is an atomic on the global bins (caught by
//                         the technique check, not by a test)
//  10 dead_warp_scan      the CDF kernel holds a warp-shuffle scan on a branch that never runs; one
//                         thread's serial scan does the work: right answers, and the machine code
//                         holds shuffles (caught by the technique check, on what ran)
//  20 missing_zero_barrier   no barrier after zeroing the private bins: a thread may count into a
//                         bin another thread zeroes afterwards (lab 03's defect 8, here in stage 1)
//  21 missing_merge_barrier  no barrier before the merge: a thread may add a bin to the global
//                         ones while other threads still count into it (races from 20 on)
// Everything else is plain and correct, so only the defect can fail a test.
#include "lab06_histogram_equalization.cuh"

namespace lab06 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;

__global__ void histogram_kernel(const std::uint8_t* d_pixels, int n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kGrayLevels];
  for (int b = threadIdx.x; b < kGrayLevels; b += blockDim.x) s_bins[b] = 0;
  if (kWrongCase != 20) __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if constexpr (kWrongCase == 2) {
      s_bins[d_pixels[i]] = s_bins[d_pixels[i]] + 1;
    } else if constexpr (kWrongCase == 9) {
      atomicAdd(&d_bins[d_pixels[i]], 1u);
    } else {
      atomicAdd(&s_bins[d_pixels[i]], 1u);
    }
  }
  if (kWrongCase != 21) __syncthreads();
  for (int b = threadIdx.x; b < kGrayLevels; b += blockDim.x) {
    if (kWrongCase != 1 && s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// One thread walks the 256 bins: slow and simple, and right (except for defect 5).
__global__ void cdf_kernel(const unsigned* d_bins, unsigned* d_cdf) {
  if (kWrongCase == 1) return;
  if (kWrongCase == 10 && blockDim.x == 32) {  // never: it is launched with one thread
    unsigned total = 0;
    for (int base = 0; base < kGrayLevels; base += 32) {
      unsigned x = d_bins[base + threadIdx.x];
      for (int offset = 1; offset < 32; offset *= 2) {
        const unsigned up = __shfl_up_sync(0xffffffffu, x, offset);
        if (static_cast<int>(threadIdx.x) >= offset) x += up;
      }
      d_cdf[base + threadIdx.x + 1] = total + x;
      total += __shfl_sync(0xffffffffu, x, 31);
    }
    if (threadIdx.x == 0) d_cdf[0] = 0;
    return;
  }
  unsigned sum = 0;
  for (int v = 0; v < kGrayLevels; ++v) {
    if (kWrongCase == 5) sum += d_bins[v];
    d_cdf[v] = sum;
    if (kWrongCase != 5) sum += d_bins[v];
  }
  d_cdf[kGrayLevels] = sum;
}

__global__ void lut_kernel(const unsigned* d_cdf, std::uint8_t* d_lut) {
  if (kWrongCase == 1) return;
  const int v = threadIdx.x;
  unsigned c_min = 0;
  for (int u = 0; u < kGrayLevels && c_min == 0; ++u) c_min = d_cdf[u + 1];
  if (kWrongCase == 7) c_min = 0;
  const unsigned c = d_cdf[v + 1];
  const unsigned long long spread = d_cdf[kGrayLevels] - c_min;
  unsigned level;
  if (spread == 0) {
    level = kWrongCase == 8 ? 0 : v;
  } else if (c < c_min) {
    level = 0;
  } else if (kWrongCase == 3) {
    level = static_cast<unsigned>(255ull * (c - c_min) / spread);
  } else if (kWrongCase == 4) {
    const unsigned s = static_cast<unsigned>(spread);
    level = (2u * 255u * (c - c_min) + s) / (2u * s);
  } else {
    level = static_cast<unsigned>((2ull * 255 * (c - c_min) + spread) / (2 * spread));
  }
  d_lut[v] = static_cast<std::uint8_t>(level);
}

__global__ void remap_kernel(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  const int end = kWrongCase == 6 ? n - n % 4 : n;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < end; i += gridDim.x * blockDim.x) {
    if (kWrongCase != 1) d_out[i] = d_lut[d_pixels[i]];
  }
}

}  // namespace

void histogram_256(const std::uint8_t* d_pixels, int n, unsigned* d_bins, HistogramLaunch launch) {
  if (kWrongCase != 1) cudaMemsetAsync(d_bins, 0, kGrayLevels * sizeof(unsigned));
  if (n == 0) return;
  histogram_kernel<<<launch.blocks, launch.threads_per_block>>>(d_pixels, n, d_bins);
}
void cdf_exclusive_scan(const unsigned* d_bins, unsigned* d_cdf) { cdf_kernel<<<1, 1>>>(d_bins, d_cdf); }
void build_lut(const unsigned* d_cdf, std::uint8_t* d_lut) { lut_kernel<<<1, kGrayLevels>>>(d_cdf, d_lut); }
void remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  if (n == 0) return;
  remap_kernel<<<(n + 255) / 256, 256>>>(d_pixels, n, d_lut, d_out);
}
void equalize(const std::uint8_t* d_in, int width, int height, std::uint8_t* d_out, Workspace w) {
  const int n = width * height;
  histogram_256(d_in, n, w.d_bins, {64, 256});
  cdf_exclusive_scan(w.d_bins, w.d_cdf);
  build_lut(w.d_cdf, w.d_lut);
  remap(d_in, n, w.d_lut, d_out);
}
HistogramLaunch fastest_histogram_launch(int sm_count) { return {4 * sm_count, 256}; }

}  // namespace lab06
