// Histogram equalization of 8-bit pixels: lab 06 (handout 06), then v2 and v3.
//   v1 four stages  the byte histogram (bytes v2), a one-block exclusive scan into the CDF, a
//                   one-block lookup table, the remap (table in shared memory, four pixels a load):
//                   four launches and a memset, 53 % of the image's copy bandwidth (H100)
//   v2 two launches bytes v3 whose last block to finish scans the 256 bins and builds the table
//                   (no launch of their own), then a remap with sixteen pixels a load and store,
//                   one copy of the table per lane (a warp's 32 lookups hit 32 banks, where v1's
//                   hit about 4 to the busiest bank), walking the image backwards so that it first
//                   reads what the histogram read last, which may still be in L2, and storing with
//                   evict-first so the output does not push it out
//   v3 one launch   v2 in one cooperative kernel: each block keeps a chunk of the image (what
//                   shared memory leaves beside the table: 79 KiB on an H100, 15 % of the image
//                   over 264 blocks) from the count to the remap, so that chunk is read once; a
//                   grid-wide barrier between the passes, then every block builds the table itself
// The bound (why not 80 % of a copy): the table needs every pixel counted before any is remapped,
// so an image larger than the chip's caches is read twice and written once, 3/2 of a copy's
// traffic: at most 67 % of the copy bandwidth, plus what the second read finds in L2 (up to 50 MB
// of the 134 MB image here). Measured on an H100 80GB HBM3 (driver 580.159.04, 2026-11-23): v1
// 52.4-52.9 % of copy, v2 61.3-61.6 % (its remap alone 92.2-93.4 %, v1's 78.9-79.4 %); on an
// H200 (same driver and date) v1 48.1-48.8 %, v2 59.1-60.1 % (remap alone 89.5-90.2 %).
// v3 (2026-11-24, same driver, three runs on the H100, one on the H200): H100 65.1-66.0 % of copy
// against v2's 61.1-61.8 % in the same runs; H200 62.0-63.5 % against 59.9-60.5 %.
// Tried after v3, not kept (H100, 2026-11-24, two runs, v3 65.2-66.2 % in the same runs): the count
// reading all but the image's last 16, 24, 32, 40, 48, 56 or 64 MB evict-first and the remap reading
// evict-first, so that L2 keeps the end it re-reads first: 64.2-66.3 %, no gain; that end marked
// evict-last instead: 60.2-61.7 %, and the rows measured after it ran slower too (evict-last lines
// outlive the flush between runs); every load evict-first: 62.0-62.6 %.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "grader/bench/references/byte_counting.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

namespace bench::reference {
namespace {

constexpr int kWarpSize = 32;
constexpr int kWarps = kGrayLevels / kWarpSize;
constexpr int kRemapThreads = 256;
constexpr int kRemapMaxBlocks = 4096;

using scan::warp_inclusive_scan;

// The CDF and the table, computed by threads 0..255 of a block of at least 256 threads (a multiple
// of 32; the others only meet the barriers): thread t holds bin t, returns lut[t] and, unless d_cdf
// is null, writes cdf[t] and lut[t], thread 255 also cdf[256]. The definitions: grader/core/equalization_reference.hpp; 64-bit
// integers, as 255 * N overflows 32 bits from 16.8 million pixels on.
__device__ unsigned cdf_and_lut(unsigned count, unsigned* d_cdf, std::uint8_t* d_lut) {
  __shared__ unsigned s_warp_totals[kWarps];
  __shared__ unsigned s_c_min;
  const int t = threadIdx.x, lane = t % kWarpSize, warp = t / kWarpSize;
  unsigned inclusive = 0;
  if (t < kGrayLevels) {
    inclusive = warp_inclusive_scan(count);
    if (lane == kWarpSize - 1) s_warp_totals[warp] = inclusive;
  }
  if (t == 0) s_c_min = 0;
  __syncthreads();
  if (warp == 0) {
    const unsigned total = warp_inclusive_scan(lane < kWarps ? s_warp_totals[lane] : 0u);
    if (lane < kWarps) s_warp_totals[lane] = total;
  }
  __syncthreads();
  if (t < kGrayLevels) {
    if (warp > 0) inclusive += s_warp_totals[warp - 1];
    if (d_cdf != nullptr) d_cdf[t] = inclusive - count;
    if (d_cdf != nullptr && t == kGrayLevels - 1) d_cdf[kGrayLevels] = inclusive;
    // The darkest level present: nothing below it, something at it. Exactly one thread.
    if (inclusive - count == 0 && inclusive > 0) s_c_min = inclusive;
  }
  __syncthreads();
  unsigned level = 0;
  if (t < kGrayLevels) {
    const unsigned long long c = inclusive, c_min = s_c_min;
    const unsigned long long spread = s_warp_totals[kWarps - 1] - c_min;
    if (spread == 0) {
      level = t;  // one gray level (or no pixel): keep the image as it is
    } else if (c < c_min) {
      level = 0;  // below the darkest level present
    } else {
      level = static_cast<unsigned>((2 * 255 * (c - c_min) + spread) / (2 * spread));  // half up
    }
    if (d_lut != nullptr) d_lut[t] = static_cast<std::uint8_t>(level);
  }
  return level;
}

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

// The four pixels of `word` through this lane's copy of the table (level v: word v * 32 + lane).
__device__ __forceinline__ unsigned remap_word(const char* s_base, unsigned word, unsigned lane4) {
  const unsigned a = *reinterpret_cast<const unsigned*>(s_base + (((word << 7) & 0x7F80u) | lane4));
  const unsigned b = *reinterpret_cast<const unsigned*>(s_base + (((word >> 1) & 0x7F80u) | lane4));
  const unsigned c = *reinterpret_cast<const unsigned*>(s_base + (((word >> 9) & 0x7F80u) | lane4));
  const unsigned d = *reinterpret_cast<const unsigned*>(s_base + (((word >> 17) & 0x7F80u) | lane4));
  return a | (b << 8) | (c << 16) | (d << 24);
}

// The sixteen pixels of `p` through this lane's copy of the table.
__device__ __forceinline__ uint4 remap_vector(const char* s_base, const uint4& p, unsigned lane4) {
  return make_uint4(remap_word(s_base, p.x, lane4), remap_word(s_base, p.y, lane4),
                    remap_word(s_base, p.z, lane4), remap_word(s_base, p.w, lane4));
}

// Pixels from..n one at a time, this thread's grid-stride share (what the vectors leave).
__device__ __forceinline__ void remap_scalars(const std::uint8_t* d_pixels, std::uint8_t* d_out, int from, int n,
                                              int first, int stride, const unsigned* s_table, unsigned lane4) {
  for (int p = from + first; p < n; p += stride) {
    d_out[p] = static_cast<std::uint8_t>(s_table[d_pixels[p] * kWarpSize + lane4 / 4]);
  }
}

// Vectors in[0..vectors) through the table into out, this thread's grid-stride share, walking
// backwards (the end was read last, so may still be in L2), the next load in flight while this
// vector goes through the table, stored with evict-first so the output does not push it out.
__device__ __forceinline__ void remap_backwards(const uint4* in, uint4* out, int vectors, int first,
                                                int stride, const char* s_base, unsigned lane4) {
  int i = vectors - 1 - first;
  uint4 next = make_uint4(0, 0, 0, 0);
  if (i >= 0) next = in[i];
  while (i >= 0) {
    const uint4 p = next;
    const int at = i;
    i -= stride;
    if (i >= 0) next = in[i];
    __stcs(out + at, remap_vector(s_base, p, lane4));
  }
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

// ---- v3 --------------------------------------------------------------------------------------------
// Block b holds vectors b * held .. + held of the image (its chunk) in shared memory while it counts
// them, then counts the rest with bytes v3's loop; after a grid-wide barrier every block builds the
// table from the merged bins and remaps the rest (backwards) and its chunk from shared memory.
__global__ void __launch_bounds__(1024, BENCH_FULL_SM_BLOCKS_OF_1024)
    v3_fused(const std::uint8_t* d_pixels, int n, std::uint8_t* d_out, Workspace workspace, int held_vectors) {
  extern __shared__ uint4 s_dynamic[];
  unsigned* s_table = reinterpret_cast<unsigned*>(s_dynamic);  // the bins' 32 copies, then the table's
  uint4* s_held = s_dynamic + bytes::kSharedWords / 4;
  __shared__ unsigned s_levels[kGrayLevels];
  __shared__ bool s_last;
  unsigned* d_scratch_bins = workspace.d_scratch;
  unsigned* d_done = workspace.d_scratch + kGrayLevels;
  const unsigned lane4 = (threadIdx.x % kWarpSize) * 4;
  char* s_base = reinterpret_cast<char*>(s_table);
  const bool aligned =
      (reinterpret_cast<std::uintptr_t>(d_pixels) | reinterpret_cast<std::uintptr_t>(d_out)) % alignof(uint4) == 0;
  // Chunks only where both images hold whole vectors and the image is larger than all of them.
  const int held = aligned && 16LL * held_vectors * gridDim.x <= n ? held_vectors : 0;
  const int rest_start = 16 * held * static_cast<int>(gridDim.x);
  const long long chunk = static_cast<long long>(blockIdx.x) * held;
  for (int w = threadIdx.x; w < bytes::kSharedWords / 4; w += blockDim.x) s_dynamic[w] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  for (int v = threadIdx.x; v < held; v += blockDim.x) {
    const uint4 x = reinterpret_cast<const uint4*>(d_pixels)[chunk + v];
    s_held[v] = x;
    bytes::count_vector(s_base, x, lane4);
  }
  bytes::count_bytes(d_pixels + rest_start, n - rest_start, s_table, false);
  bytes::merge_copies(s_table, d_scratch_bins);
  cooperative_groups::this_grid().sync();
  // Every block builds the table; block 0 also leaves the bins, CDF and table in the workspace.
  const bool keep = blockIdx.x == 0;
  unsigned count = 0;
  if (threadIdx.x < kGrayLevels) count = __ldcg(&d_scratch_bins[threadIdx.x]);
  if (keep && threadIdx.x < kGrayLevels) workspace.d_bins[threadIdx.x] = count;
  const unsigned level = cdf_and_lut(count, keep ? workspace.d_cdf : nullptr, keep ? workspace.d_lut : nullptr);
  if (threadIdx.x < kGrayLevels) s_levels[threadIdx.x] = level;
  __syncthreads();
  if (threadIdx.x == 0) {  // the last block to have read the bins leaves them zero for the next call
    __threadfence();
    s_last = atomicAdd(d_done, 1u) == gridDim.x - 1;
  }
  for (int k = threadIdx.x; k < kGrayLevels * kWarpSize; k += blockDim.x) s_table[k] = s_levels[k / kWarpSize];
  __syncthreads();
  if (s_last && threadIdx.x < kGrayLevels) d_scratch_bins[threadIdx.x] = 0;
  if (s_last && threadIdx.x == 0) *d_done = 0;
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const int rest = n - rest_start;
  const int vectors = aligned ? rest / 16 : 0;
  remap_backwards(reinterpret_cast<const uint4*>(d_pixels + rest_start),
                  reinterpret_cast<uint4*>(d_out + rest_start), vectors, first, stride, s_base, lane4);
  remap_scalars(d_pixels, d_out, rest_start + 16 * vectors, n, first, stride, s_table, lane4);
  for (int v = threadIdx.x; v < held; v += blockDim.x) {
    __stcs(reinterpret_cast<uint4*>(d_out) + chunk + v, remap_vector(s_base, s_held[v], lane4));
  }
}

// As many blocks as fit on the GPU at once (a cooperative launch needs them all resident), each
// holding as much of the image as the shared memory of its SM leaves it beside the table.
FusedLaunch fused_launch() {
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  cudaFuncAttributes attributes{};
  cudaFuncGetAttributes(&attributes, v3_fused);
  constexpr long long kTable = sizeof(unsigned) * bytes::kSharedWords;
  const long long beside = static_cast<long long>(prop.sharedMemPerMultiprocessor) / BENCH_FULL_SM_BLOCKS_OF_1024 -
                           static_cast<long long>(prop.reservedSharedMemPerBlock);
  long long held = std::min(beside, static_cast<long long>(prop.sharedMemPerBlockOptin)) -
                   static_cast<long long>(attributes.sharedSizeBytes) - kTable;
  held = std::max(0LL, held / 1024 * 1024);
  for (;; held = std::max(0LL, held - 1024)) {
    const int dynamic = static_cast<int>(kTable + held);
    cudaFuncSetAttribute(v3_fused, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v3_fused, 1024, dynamic);
    if (per_sm >= BENCH_FULL_SM_BLOCKS_OF_1024 || held == 0) {
      return {per_sm * prop.multiProcessorCount, static_cast<int>(held / 16), dynamic};
    }
  }
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

const FusedLaunch& equalize_v3_launch() {
  static const FusedLaunch launch = fused_launch();
  return launch;
}

void equalize_v3(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  const FusedLaunch& launch = equalize_v3_launch();
  int held = launch.held_vectors;
  void* args[] = {&d_in, &n, &d_out, &workspace, &held};
  cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(v3_fused), launch.blocks, 1024, args,
                              launch.shared_bytes);
}

void equalize_v2(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  // Even an empty image gets its (all-zero) bins, CDF and table.
  v2_histogram_lut<<<2 * sm_count(), 1024>>>(d_in, n, workspace);
  remap_v2(d_in, n, workspace.d_lut, d_out);
}

}  // namespace bench::reference
