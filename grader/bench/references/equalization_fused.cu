// Histogram equalization in one cooperative launch: v3 and v4, after equalization.cu's v1 and v2.
//   v3 one launch   v2 in one cooperative kernel: each block keeps a chunk of the image (what
//                   shared memory leaves beside the table: 79 KiB on an H100, 15 % of the image
//                   over 264 blocks) from the count to the remap, so that chunk is read once; a
//                   grid-wide barrier between the passes, then every block builds the table itself
//   v4 registers    v3 with one block an SM, whose chunk then takes what the SM's shared memory
//                   leaves beside the table (193 KiB), and six vectors a thread kept in registers
//                   (96 KiB an SM): 29 % of the image read once
// Measured (driver 580.159.04, % of the image's copy bandwidth): v3 (2026-11-24, three runs on the
// H100 80GB HBM3, one on the H200) H100 65.1-66.0 % against v2's 61.1-61.8 % in the same runs;
// H200 62.0-63.5 % against 59.9-60.5 %.
// Tried after v3, not kept (H100, 2026-11-24, two runs, v3 65.2-66.2 % in the same runs): the count
// reading all but the image's last 16, 24, 32, 40, 48, 56 or 64 MB evict-first and the remap reading
// evict-first, so that L2 keeps the end it re-reads first: 64.2-66.3 %, no gain; that end marked
// evict-last instead: 60.2-61.7 %, and the rows measured after it ran slower too (evict-last lines
// outlive the flush between runs); every load evict-first: 62.0-62.6 %.
// v4 (2026-11-24, one run on each GPU): H100 68.2-68.3 % of copy against v3's 65.2-66.3 % in the
// same run, H200 63.7-64.8 % against 60.9-62.4 %. Its steps (H100, one run, v3 65.2-66.3 %): one
// block an SM with the larger chunk alone 65.7-65.8 %; then 2, 4 and 6 vectors a thread in
// registers 66.6-66.8, 67.4-67.8 and 68.0-68.2 % (six take the 64 registers 1024 threads may have).
// Against its own traffic (the image read 1.71 times and written once, fused_held_bytes), v4 ran at
// 91.6-92.9 % of the copy bandwidth on the H100 and 86.4-88.1 % on the H200 (2026-11-24, three
// runs each, the benchmark's "own traffic's roofline" target).
// Tried after v4 (H200, 2026-11-24 13:21 UTC, two runs, v4 64.9-65.5 % of a copy in the same runs):
// the rest counted before the registers are loaded 64.8-65.8 %; then the chunk copied into shared
// memory asynchronously (cp.async) at the start, so more bytes are in flight while the rest is
// counted, 61.8-62.3 %; with the rest counted 4 or 6 vectors deep 60.2-60.8 %, and the remap 2 or 3
// vectors ahead 61.5-62.3 %. Bytes in flight are not what v4 lacks on the H200.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "grader/bench/references/byte_counting.cuh"
#include "grader/bench/references/equalization_remap.cuh"
#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

using namespace equalize;  // the shared pieces: equalization_remap.cuh

// ---- v3 and v4 -------------------------------------------------------------------------------------
// The bytes a fused launch keeps on chip between its passes: the image's first bytes, all the
// blocks' chunks, then kRegs vectors a thread; none where the image is no larger than all of them.
// The kernel's rule, and fused_held_bytes's.
__host__ __device__ constexpr long long held_on_chip(long long blocks, long long threads_per_block,
                                                     long long held_vectors, long long regs, int n) {
  const long long bytes = 16 * blocks * (held_vectors + threads_per_block * regs);
  return bytes <= n ? bytes : 0;
}

// Block b holds vectors b * held .. + held of the image (its chunk) in shared memory while it counts
// them, then counts the rest with bytes v3's loop; after a grid-wide barrier every block builds the
// table from the merged bins and remaps the rest (backwards) and its chunk from shared memory.
// v4 (kRegs > 0): each thread also keeps kRegs vectors in registers, read first, remapped last
// (thread t of the grid holds vectors chunks + k * threads + t: coalesced).
template <int kBlocksPerSm, int kRegs>
__global__ void __launch_bounds__(1024, kBlocksPerSm)
    fused(const std::uint8_t* d_pixels, int n, std::uint8_t* d_out, Workspace workspace, int held_vectors) {
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
  const int threads = static_cast<int>(gridDim.x * blockDim.x);
  const long long chunks = static_cast<long long>(held_vectors) * gridDim.x;
  const long long on_chip = aligned ? held_on_chip(gridDim.x, blockDim.x, held_vectors, kRegs, n) : 0;
  const bool hold = on_chip > 0;
  const int held = hold ? held_vectors : 0;
  const int rest_start = static_cast<int>(on_chip);
  const long long chunk = static_cast<long long>(blockIdx.x) * held;
  const int me = blockIdx.x * blockDim.x + threadIdx.x;
  const uint4* d_vectors = reinterpret_cast<const uint4*>(d_pixels);
  uint4 kept[kRegs > 0 ? kRegs : 1];
#pragma unroll
  for (int k = 0; k < kRegs; ++k) kept[k] = hold ? d_vectors[chunks + k * threads + me] : make_uint4(0, 0, 0, 0);
  for (int w = threadIdx.x; w < bytes::kSharedWords / 4; w += blockDim.x) s_dynamic[w] = make_uint4(0, 0, 0, 0);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kRegs; ++k) {
    if (hold) bytes::count_vector(s_base, kept[k], lane4);
  }
  for (int v = threadIdx.x; v < held; v += blockDim.x) {
    const uint4 x = d_vectors[chunk + v];
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
  const int rest = n - rest_start;
  const int vectors = aligned ? rest / 16 : 0;
  remap_backwards(reinterpret_cast<const uint4*>(d_pixels + rest_start),
                  reinterpret_cast<uint4*>(d_out + rest_start), vectors, me, threads, s_base, lane4);
  remap_scalars(d_pixels, d_out, rest_start + 16 * vectors, n, me, threads, s_table, lane4);
  uint4* d_out_vectors = reinterpret_cast<uint4*>(d_out);
  for (int v = threadIdx.x; v < held; v += blockDim.x) {
    __stcs(d_out_vectors + chunk + v, remap_vector(s_base, s_held[v], lane4));
  }
#pragma unroll
  for (int k = 0; k < kRegs; ++k) {
    if (hold) __stcs(d_out_vectors + chunks + k * threads + me, remap_vector(s_base, kept[k], lane4));
  }
}

// v3: two blocks an SM, no vectors in registers. v4: one block an SM, whose chunk can then take
// all the shared memory the table leaves, and six vectors a thread in registers (64 registers,
// all that 1024 threads an SM may have).
constexpr int kV3BlocksPerSm = BENCH_FULL_SM_BLOCKS_OF_1024, kV3Regs = 0;
constexpr int kV4BlocksPerSm = 1, kV4Regs = 6;

// As many blocks as fit on the GPU at once (a cooperative launch needs them all resident), each
// holding as much of the image as the shared memory of its SM leaves it beside the table.
template <int kBlocksPerSm, int kRegs>
FusedLaunch fused_launch() {
  const auto kernel = fused<kBlocksPerSm, kRegs>;
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  cudaFuncAttributes attributes{};
  cudaFuncGetAttributes(&attributes, kernel);
  constexpr long long kTable = sizeof(unsigned) * bytes::kSharedWords;
  const long long beside = static_cast<long long>(prop.sharedMemPerMultiprocessor) / kBlocksPerSm -
                           static_cast<long long>(prop.reservedSharedMemPerBlock);
  long long held = std::min(beside, static_cast<long long>(prop.sharedMemPerBlockOptin)) -
                   static_cast<long long>(attributes.sharedSizeBytes) - kTable;
  held = std::max(0LL, held / 1024 * 1024);
  for (;; held = std::max(0LL, held - 1024)) {
    const int dynamic = static_cast<int>(kTable + held);
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic);
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 1024, dynamic);
    if (per_sm >= kBlocksPerSm || held == 0) {
      return {per_sm * prop.multiProcessorCount, static_cast<int>(held / 16), dynamic, kRegs};
    }
  }
}

template <int kBlocksPerSm, int kRegs>
void fused_equalize(const FusedLaunch& launch, const std::uint8_t* d_in, int n, std::uint8_t* d_out,
                    Workspace workspace) {
  int held = launch.held_vectors;
  void* args[] = {&d_in, &n, &d_out, &workspace, &held};
  cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(fused<kBlocksPerSm, kRegs>), launch.blocks, 1024,
                              args, launch.shared_bytes);
}

}  // namespace

long long fused_held_bytes(const FusedLaunch& launch, int n) {
  return held_on_chip(launch.blocks, 1024, launch.held_vectors, launch.vectors_in_registers, n);
}

const FusedLaunch& equalize_v3_launch() {
  static const FusedLaunch launch = fused_launch<kV3BlocksPerSm, kV3Regs>();
  return launch;
}

void equalize_v3(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  fused_equalize<kV3BlocksPerSm, kV3Regs>(equalize_v3_launch(), d_in, n, d_out, workspace);
}

const FusedLaunch& equalize_v4_launch() {
  static const FusedLaunch launch = fused_launch<kV4BlocksPerSm, kV4Regs>();
  return launch;
}

void equalize_v4(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace) {
  fused_equalize<kV4BlocksPerSm, kV4Regs>(equalize_v4_launch(), d_in, n, d_out, workspace);
}

}  // namespace bench::reference
