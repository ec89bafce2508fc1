// Inclusive scans of a whole int32 array: lab 05 v5 and v6 (handout 05); the faster single passes
// that follow them, v7 to v11, are in scan_wide_rows.cu. Figures and what was tried after v6:
// grader/bench/NOTES.md, "scan_array.cu".
//   v5 multi-block  three passes (totals, their scan, each tile again): reads the input twice
//   v6 single pass  tiles from a counter, decoupled look-back, rows staged through shared memory
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

// ---- v6: one tile's scan, from its staged row to its look-back ------------------------------------
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
  publish_and_look_back(tile, aggregate, d_states, s_prefix);
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

}  // namespace

// One int per v5 tile (the smallest tile is 128 * 16 elements), or one state per single-pass tile
// (v6's of 512 * 16 elements and v7's of 128 * 48 are no smaller than 128 * 16) plus the tile
// counter, whichever is larger.
std::size_t scan_workspace_bytes(int n) {
  const std::size_t v5 = sizeof(int) * (static_cast<std::size_t>(tiles_for(n, kMultiBlockThreads)) + 4);
  const std::size_t single =
      sizeof(unsigned long long) * (static_cast<std::size_t>(tiles_for(n, 128)) + 2);
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

}  // namespace bench::reference
