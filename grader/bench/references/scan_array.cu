// Inclusive scans of a whole int32 array: lab 05 v5 and v6 (handout 05), then v7.
//   v5 multi-block   three passes: each tile's total, one block scans the totals, each tile scanned
//                    again from its offset (reads the input twice: at best 2/3 of a copy)
//   v6 single pass   tiles taken in order from a counter; each publishes its total, then looks back
//                    over its predecessors' states for its prefix (decoupled look-back); tiles staged
//                    through shared memory so a thread scans 16 consecutive elements: 0.95x CUB
//   v7 persistent    v6 with one resident grid: each block takes tile after tile, and copies the
//                    next tile into a second staging area (cp.async) while it stores this one.
//                    A first version took the next tile a round ahead: 3.07-3.08 ms on 2^25 int32
//                    (0.03-0.04x CUB, H100 and H200, driver 580.159.04, 2026-11-23), its tiles
//                    waiting on each other block after block; it now takes it after the look-back
//                    (right on the CPU backend; not yet timed on a GPU).
//                    Blocks of 512 threads (two 40 KiB staging areas), or of 256 where a block
//                    cannot have 80 KiB of shared memory (sm_75)
#include <stdexcept>

#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

namespace bench::reference {
namespace {

using namespace scan;  // the shared pieces: scan_common.cuh

// ---- v5 -------------------------------------------------------------------------------------------
__global__ void v5_tile_totals(const int* d_in, int n, int* d_totals) {
  __shared__ int warp_totals[kWarpSize];
  const Items items = load_items(d_in, blockIdx.x * tile_elements(blockDim.x), n);
  int sum = 0;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) sum += items.v[k].x + items.v[k].y + items.v[k].z + items.v[k].w;
  const int total = block_inclusive_scan(sum, warp_totals);
  if (threadIdx.x == blockDim.x - 1) d_totals[blockIdx.x] = total;
}

// One block turns the totals, in place, into each tile's offset (exclusive), a tile's worth a round.
__global__ void __launch_bounds__(1024) v5_tile_offsets(int* d_totals, int count) {
  __shared__ int warp_totals[2 * kWarpSize];
  int carry = 0;
  for (long long start = 0; start < count; start += tile_elements(blockDim.x)) {
    const Items items = load_items(d_totals, start, count);
    Items exclusive = items;
    carry = scan_items(exclusive, carry, warp_totals);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      exclusive.v[k].x -= items.v[k].x;
      exclusive.v[k].y -= items.v[k].y;
      exclusive.v[k].z -= items.v[k].z;
      exclusive.v[k].w -= items.v[k].w;
    }
    __syncthreads();  // every thread has read this round's totals before any is overwritten
    store_items(d_totals, start, count, exclusive);
  }
}

__global__ void v5_scan_tiles(const int* d_in, int n, int* d_out, const int* d_offsets) {
  __shared__ int warp_totals[2 * kWarpSize];
  const long long start = blockIdx.x * tile_elements(blockDim.x);
  Items items = load_items(d_in, start, n);
  scan_items(items, d_offsets[blockIdx.x], warp_totals);
  store_items(d_out, start, n, items);
}

// ---- v6 and v7: one tile's scan, from its staged row to its look-back ----------------------------
constexpr int kSinglePassThreads = 512;
constexpr int kStageVectors = kSinglePassThreads * kStagedRowVectors;  // 40 KiB

// Scans the staged tile `tile` in place (s_stage: this thread's row read, scanned, written back),
// publishing its total and then its prefix; ends with a barrier.
__device__ __forceinline__ void scan_staged_tile(int4* s_stage, long long tile, unsigned long long* d_states,
                                                 int* warp_totals, int* s_prefix) {
  Items mine = read_row(s_stage);
  const int own = scan_own(mine);
  const int threads_before = block_inclusive_scan(own, warp_totals) - own;
  const int aggregate = warp_totals[blockDim.x / kWarpSize - 1];
  if (threadIdx.x < kWarpSize) {
    int prefix = 0;
    if (tile == 0) {
      if (threadIdx.x == 0) publish(d_states, 0, kPrefix, aggregate);
    } else {
      if (threadIdx.x == 0) publish(d_states, tile, kAggregate, aggregate);
      prefix = look_back(d_states, tile);
      if (threadIdx.x == 0) publish(d_states, tile, kPrefix, prefix + aggregate);
    }
    if (threadIdx.x == 0) *s_prefix = prefix;
  }
  __syncthreads();
  add_to_all(mine, *s_prefix + threads_before);
  write_row(s_stage, mine);
  __syncthreads();
}

// v6: one tile per block; a whole tile goes straight from global to its staged slots.
__global__ void __launch_bounds__(kSinglePassThreads)
    v6_single_pass(const int* d_in, int n, int* d_out, unsigned long long* d_states, unsigned* d_next_tile) {
  __shared__ int4 s_stage[kStageVectors];
  __shared__ int warp_totals[kWarpSize];
  __shared__ long long s_tile;
  __shared__ int s_prefix;
  if (threadIdx.x == 0) s_tile = atomicAdd(d_next_tile, 1u);
  __syncthreads();
  const long long tile = s_tile;
  const long long start = tile * tile_elements(blockDim.x);
  if (start + tile_elements(blockDim.x) <= n) {
    const int4* d_tile = reinterpret_cast<const int4*>(d_in + start);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int vector = k * blockDim.x + threadIdx.x;
      s_stage[staged_slot(vector)] = d_tile[vector];
    }
  } else {
    const Items striped = load_items(d_in, start, n);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) s_stage[staged_slot(k * blockDim.x + threadIdx.x)] = striped.v[k];
  }
  __syncthreads();
  scan_staged_tile(s_stage, tile, d_states, warp_totals, &s_prefix);
  store_staged(d_out, start, n, s_stage);
}

// ---- v7 ----------------------------------------------------------------------------------------
// Two staging areas for blocks of `threads` threads: 80 KiB for 512.
constexpr int persistent_shared_bytes(int threads) {
  return 2 * threads * kStagedRowVectors * static_cast<int>(sizeof(int4));
}

// One int4 of the tile, `bytes` of it from global memory and the rest zeros, copied without going
// through registers (cp.async, sm_80 on); older GPUs copy it through registers.
__device__ __forceinline__ void copy_vector(int4* s_dst, const int* d_src, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               ::"r"(dst), "l"(d_src), "r"(bytes)
               : "memory");
#else
  int4 v = make_int4(0, 0, 0, 0);
  if (bytes == 16) {
    v = *reinterpret_cast<const int4*>(d_src);
  } else {
    v.x = bytes > 0 ? d_src[0] : 0;
    v.y = bytes > 4 ? d_src[1] : 0;
    v.z = bytes > 8 ? d_src[2] : 0;
  }
  *s_dst = v;
#endif
}
__device__ __forceinline__ void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Starts copying tile `tile` into its staged slots (zeros past n).
__device__ __forceinline__ void stage_tile(const int* d_in, int n, long long tile, int4* s_stage) {
  const long long start = tile * tile_elements(blockDim.x);
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const int vector = k * blockDim.x + threadIdx.x;
    const long long left = n - (start + 4LL * vector);  // elements from this vector's first to n
    const int bytes = left >= 4 ? 16 : left > 0 ? static_cast<int>(4 * left) : 0;
    copy_vector(s_stage + staged_slot(vector), bytes > 0 ? d_in + start + 4LL * vector : d_in, bytes);
  }
}

// Waits for every copy this thread started.
__device__ __forceinline__ void wait_all_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// The next tile is taken only once this one has published its prefix: a tile taken earlier (as
// the first version did, a round ahead) sat unscanned while its block finished the tile before,
// and every later tile's look-back waited for it, block after block (3.07 ms on 2^25 int32).
template <int kThreads>
__global__ void __launch_bounds__(kThreads, 2)
    v7_persistent(const int* d_in, int n, int* d_out, unsigned long long* d_states, unsigned* d_next_tile,
                  int tiles) {
  constexpr int kStage = kThreads * kStagedRowVectors;  // int4 of one staging area
  extern __shared__ __align__(16) int4 s_stages[];     // two staging areas
  __shared__ int warp_totals[kWarpSize];
  __shared__ int s_tile;
  __shared__ int s_prefix;
  if (threadIdx.x == 0) s_tile = static_cast<int>(atomicAdd(d_next_tile, 1u));
  __syncthreads();
  long long tile = s_tile;
  if (tile >= tiles) return;
  int buffer = 0;
  stage_tile(d_in, n, tile, s_stages);
  commit_copies();
  while (true) {
    int4* current = s_stages + buffer * kStage;
    wait_all_copies();
    __syncthreads();  // every thread's copies of this tile have landed; s_tile is read
    scan_staged_tile(current, tile, d_states, warp_totals, &s_prefix);  // ends with a barrier
    if (threadIdx.x == 0) s_tile = static_cast<int>(atomicAdd(d_next_tile, 1u));
    __syncthreads();
    const int next = s_tile;
    // The next tile's loads fly while this one is stored.
    if (next < tiles) stage_tile(d_in, n, next, s_stages + (1 - buffer) * kStage);
    commit_copies();
    store_staged(d_out, tile * tile_elements(blockDim.x), n, current);
    if (next >= tiles) break;
    tile = next;
    buffer = 1 - buffer;
  }
}

int sm_count() {
  int device = 0, count = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  return count;
}

// How many blocks of v7<threads> an SM holds with their two staging areas (0: none).
template <int kThreads>
int persistent_blocks_per_sm() {
  constexpr int kBytes = persistent_shared_bytes(kThreads);
  int per_sm = 0;
  const auto kernel = v7_persistent<kThreads>;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes) == cudaSuccess) {
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, kBytes);
  }
  cudaGetLastError();  // a refusal is no launch error
  return per_sm;
}

template <int kThreads>
void launch_persistent(const int* d_in, int n, int* d_out, void* d_workspace, int blocks_per_sm) {
  const int tiles = tiles_for(n, kThreads);
  const int resident = blocks_per_sm * sm_count();
  auto* d_states = static_cast<unsigned long long*>(d_workspace);
  cudaMemsetAsync(d_workspace, 0, sizeof(unsigned long long) * (tiles + 1));  // states and counter
  const int blocks = tiles < resident ? tiles : resident;
  constexpr int kBytes = persistent_shared_bytes(kThreads);
  v7_persistent<kThreads><<<blocks, kThreads, kBytes>>>(d_in, n, d_out, d_states,
                                                       reinterpret_cast<unsigned*>(d_states + tiles), tiles);
}

}  // namespace

// One int per v5 tile (the smallest tile is 128 * 16 elements), or one state per single-pass tile
// (the smallest is 256 * 16 elements, v7's on sm_75) plus the tile counter, whichever is larger.
std::size_t scan_workspace_bytes(int n) {
  const std::size_t v5 = sizeof(int) * (static_cast<std::size_t>(tiles_for(n, kMultiBlockThreads)) + 4);
  const std::size_t single =
      sizeof(unsigned long long) * (static_cast<std::size_t>(tiles_for(n, 256)) + 2);
  return v5 > single ? v5 : single;
}

void scan_v5_multi_block(const int* d_in, int n, int* d_out, void* d_workspace, int threads_per_block) {
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  const int tiles = tiles_for(n, threads_per_block);
  int* d_totals = static_cast<int*>(d_workspace);
  v5_tile_totals<<<tiles, threads_per_block>>>(d_in, n, d_totals);
  v5_tile_offsets<<<1, 1024>>>(d_totals, tiles);
  v5_scan_tiles<<<tiles, threads_per_block>>>(d_in, n, d_out, d_totals);
}

void scan_v6_single_pass(const int* d_in, int n, int* d_out, void* d_workspace) {
  if (n == 0) return;
  const int tiles = tiles_for(n, kSinglePassThreads);
  auto* d_states = static_cast<unsigned long long*>(d_workspace);
  cudaMemsetAsync(d_workspace, 0, sizeof(unsigned long long) * (tiles + 1));  // states and counter
  v6_single_pass<<<tiles, kSinglePassThreads>>>(d_in, n, d_out, d_states,
                                                reinterpret_cast<unsigned*>(d_states + tiles));
}

void scan_v7_persistent(const int* d_in, int n, int* d_out, void* d_workspace) {
  if (n == 0) return;
  static const int wide_per_sm = persistent_blocks_per_sm<512>();
  static const int narrow_per_sm = wide_per_sm > 0 ? 0 : persistent_blocks_per_sm<256>();
  if (wide_per_sm > 0) {
    launch_persistent<512>(d_in, n, d_out, d_workspace, wide_per_sm);
  } else if (narrow_per_sm > 0) {
    launch_persistent<256>(d_in, n, d_out, d_workspace, narrow_per_sm);
  } else {
    throw std::runtime_error("scan v7: no block of 256 threads and 40 KiB of staging fits an SM");
  }
}

}  // namespace bench::reference
