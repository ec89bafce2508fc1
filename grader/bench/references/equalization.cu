// Histogram equalization of 8-bit pixels: lab 06 (handout 06), then v2; v3 and v4, one launch
// each, in equalization_fused.cu. The table needs every pixel counted before any is remapped, so a
// large image is read twice and written once. Figures and the bound: grader/bench/NOTES.md.
//   v1 four stages   byte histogram, one-block CDF scan, one-block table, remap: four launches
//   v2 two launches  the histogram's last block builds the table; remap 16 pixels a load, backwards
#include <cstdint>

#include "grader/bench/references/byte_counting.cuh"
#include "grader/bench/references/equalization_remap.cuh"
#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

using namespace equalize;  // the shared pieces: equalization_remap.cuh
constexpr int kRemapThreads = 256;
constexpr int kRemapMaxBlocks = 4096;

// ---- v1 --------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(kGrayLevels) v1_cdf(const unsigned* d_bins, unsigned* d_cdf) {
  __shared__ unsigned warp_totals[kWarps];
  const int t = threadIdx.x, lane = t % kWarpSize, warp = t / kWarpSize;
  const unsigned count = d_bins[t];
  unsigned inclusive = warp_inclusive_scan(count);
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const unsigned total = warp_inclusive_scan(lane < kWarps ? warp_totals[lane] : 0u);
    if (lane < kWarps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) inclusive += warp_totals[warp - 1];
  d_cdf[t] = inclusive - count;
  if (t == kGrayLevels - 1) d_cdf[kGrayLevels] = inclusive;
}

__global__ void __launch_bounds__(kGrayLevels) v1_lut(const unsigned* d_cdf, std::uint8_t* d_lut) {
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
    level = v;
  } else if (c < c_min) {
    level = 0;
  } else {
    level = static_cast<unsigned>((2 * 255 * (c - c_min) + spread) / (2 * spread));
  }
  d_lut[v] = static_cast<std::uint8_t>(level);
}

__global__ void __launch_bounds__(kRemapThreads)
    v1_remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  __shared__ std::uint8_t s_lut[kGrayLevels];
  for (int v = threadIdx.x; v < kGrayLevels; v += blockDim.x) s_lut[v] = d_lut[v];
  __syncthreads();
  // Four pixels a load where both images start on a 4-byte boundary; otherwise one at a time.
  const std::uintptr_t addresses =
      reinterpret_cast<std::uintptr_t>(d_pixels) | reinterpret_cast<std::uintptr_t>(d_out);
  const int words = addresses % alignof(uchar4) == 0 ? n / 4 : 0;
  const uchar4* in = reinterpret_cast<const uchar4*>(d_pixels);
  uchar4* out = reinterpret_cast<uchar4*>(d_out);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int w = first; w < words; w += stride) {
    const uchar4 p = in[w];
    out[w] = make_uchar4(s_lut[p.x], s_lut[p.y], s_lut[p.z], s_lut[p.w]);
  }
  for (int i = 4 * words + first; i < n; i += stride) d_out[i] = s_lut[d_pixels[i]];
}

// ---- v2 --------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(1024, BENCH_FULL_SM_BLOCKS_OF_1024)
    v2_histogram_lut(const std::uint8_t* d_pixels, int n, Workspace workspace) {
  __shared__ __align__(16) unsigned s_bins[bytes::kSharedWords];
  __shared__ bool s_last;
  unsigned* d_scratch_bins = workspace.d_scratch;
  unsigned* d_done = workspace.d_scratch + kGrayLevels;
  bytes::count_bytes(d_pixels, n, s_bins);
  bytes::merge_copies(s_bins, d_scratch_bins);
  __threadfence();  // this block's merge is visible before it counts itself done
  __syncthreads();
  if (threadIdx.x == 0) s_last = atomicAdd(d_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!s_last) return;
  // The last block: every other block's bins are in L2. It moves them to the workspace, leaves
  // the scratch zero for the next call, and builds the CDF and the table.
  __threadfence();
  unsigned count = 0;
  if (threadIdx.x < kGrayLevels) {
    count = __ldcg(&d_scratch_bins[threadIdx.x]);
    workspace.d_bins[threadIdx.x] = count;
    d_scratch_bins[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) *d_done = 0;
  cdf_and_lut(count, workspace.d_cdf, workspace.d_lut);
}

__global__ void __launch_bounds__(1024, BENCH_FULL_SM_BLOCKS_OF_1024)
    v2_remap(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  __shared__ unsigned s_lut[kGrayLevels * kWarpSize];  // 32 KiB
  for (int k = threadIdx.x; k < kGrayLevels * kWarpSize; k += blockDim.x) s_lut[k] = d_lut[k / kWarpSize];
  __syncthreads();
  const unsigned lane4 = (threadIdx.x % kWarpSize) * 4;
  const char* s_base = reinterpret_cast<const char*>(s_lut);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uintptr_t addresses =
      reinterpret_cast<std::uintptr_t>(d_pixels) | reinterpret_cast<std::uintptr_t>(d_out);
  const bool aligned = addresses % alignof(uint4) == 0;
  const int vectors = aligned ? n / 16 : 0;
  remap_backwards(reinterpret_cast<const uint4*>(d_pixels), reinterpret_cast<uint4*>(d_out), vectors,
                  first, stride, s_base, lane4);
  remap_scalars(d_pixels, d_out, 16 * vectors, n, first, stride, s_lut, lane4);
}

int sm_count() {
  int device = 0, count = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  return count;
}

}  // namespace

void cdf_v1(const unsigned* d_bins, unsigned* d_cdf) { v1_cdf<<<1, kGrayLevels>>>(d_bins, d_cdf); }

void lut_v1(const unsigned* d_cdf, std::uint8_t* d_lut) { v1_lut<<<1, kGrayLevels>>>(d_cdf, d_lut); }

void remap_v1(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  const int words = n / 4 > 0 ? n / 4 : 1;
  int blocks = (words + kRemapThreads - 1) / kRemapThreads;
  if (blocks > kRemapMaxBlocks) blocks = kRemapMaxBlocks;
  v1_remap<<<blocks, kRemapThreads>>>(d_pixels, n, d_lut, d_out);
}

void equalize_v1(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  histogram_bytes_v2_bank_copies(d_in, n, workspace.d_bins, bytes_v2_launch(sm_count()));
  cdf_v1(workspace.d_bins, workspace.d_cdf);
  lut_v1(workspace.d_cdf, workspace.d_lut);
  remap_v1(d_in, n, workspace.d_lut, d_out);
}

void remap_v2(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out) {
  if (n == 0) return;
  v2_remap<<<2 * sm_count(), 1024>>>(d_pixels, n, d_lut, d_out);
}

void equalize_v2(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  // Even an empty image gets its (all-zero) bins, CDF and table.
  v2_histogram_lut<<<2 * sm_count(), 1024>>>(d_in, n, workspace);
  remap_v2(d_in, n, workspace.d_lut, d_out);
}

}  // namespace bench::reference
