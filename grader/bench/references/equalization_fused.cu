// Histogram equalization in one cooperative launch: v3 and v4, after equalization.cu's v1 and v2.
// Figures and what was tried: grader/bench/NOTES.md, "equalization_fused.cu".
//   v3 one launch  each block keeps a chunk in shared memory from count to remap: read once
//   v4 registers   one block an SM (a larger chunk) and six vectors a thread kept in registers
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
