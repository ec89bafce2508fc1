// Lab 05 - scans and warps: given code, not an exercise. starter/lab05_scan_warps.cu includes it
// and its v5 and v6 kernels call it; you write nothing here. What it holds:
//   kWarpSize, kFullMask            a warp's width; the mask naming all 32 lanes
//   Items, load_items, store_items  a tile in registers, kVectors int4 a thread, moved to and from
//                                   global memory with coalesced 16-byte accesses (zeros past n)
//   block_sum                       the block's total of one int a thread
//   scan_items                      scans an Items tile with your block_inclusive_scan (Q4.2)
//   tile_elements, tiles_for        a tile's elements for a block size; the tiles n elements need
//   kAggregate, kPrefix, publish    v6's tile states, and the store that publishes one
//   kSinglePassThreads, kStaged...  v6's block size and shared staging area: load_consecutive and
//   load_consecutive, ...           store_consecutive give each thread consecutive elements
// It opens the submission's own unnamed namespace, so it compiles as part of that file.
#pragma once
#include <cuda_runtime.h>

namespace lab05 {
namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// Yours, in lab05_scan_warps.cu (question 4.2): scan_items below scans with it.
__device__ int block_inclusive_scan(int value, int* warp_totals);

// A thread holds kVectors int4 of a tile: vector k of thread t is int4 number k*blockDim + t, so
// each load instruction of a warp reads 512 contiguous bytes.
constexpr int kVectors = 4;
constexpr int kItemsPerThread = 4 * kVectors;

struct Items {
  int4 v[kVectors];
};

// The tile that starts at tile_start, in load_items' layout; zeros past n.
[[maybe_unused]] __device__ Items load_items(const int* d_in, long long tile_start, int n) {
  Items items;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const long long first = tile_start + 4LL * (k * blockDim.x + threadIdx.x);
    if (first + 3 < n) {
      items.v[k] = *reinterpret_cast<const int4*>(d_in + first);
    } else {  // the ragged end of the array: zeros past n
      items.v[k].x = first < n ? d_in[first] : 0;
      items.v[k].y = first + 1 < n ? d_in[first + 1] : 0;
      items.v[k].z = first + 2 < n ? d_in[first + 2] : 0;
      items.v[k].w = first + 3 < n ? d_in[first + 3] : 0;
    }
  }
  return items;
}

// Stores a tile held as load_items holds it; nothing past n.
[[maybe_unused]] __device__ void store_items(int* d_out, long long tile_start, int n, const Items& items) {
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const long long first = tile_start + 4LL * (k * blockDim.x + threadIdx.x);
    if (first + 3 < n) {
      *reinterpret_cast<int4*>(d_out + first) = items.v[k];
    } else {
      if (first < n) d_out[first] = items.v[k].x;
      if (first + 1 < n) d_out[first + 1] = items.v[k].y;
      if (first + 2 < n) d_out[first + 2] = items.v[k].z;
    }
  }
}

// The sum of `value` over the block's threads, in every thread. warp_totals holds kWarpSize ints.
[[maybe_unused]] __device__ int block_sum(int value, int* warp_totals) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(kFullMask, value, offset);
  }
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  if (lane == 0) warp_totals[threadIdx.x / kWarpSize] = value;
  __syncthreads();
  int total = 0;
  for (int w = 0; w < warps; ++w) total += warp_totals[w];
  return total;
}

// Scans the tile held in `items` in place, starting from `carry`; returns the tile's total.
// Vector k of every thread comes after vector k-1 of every thread, so the vectors are scanned one
// round at a time. warp_totals holds 2 * kWarpSize ints: alternate rounds use alternate halves, so
// a round's writes never meet the previous round's reads without a third barrier.
[[maybe_unused]] __device__ int scan_items(Items& items, int carry, int* warp_totals) {
  const int warps = blockDim.x / kWarpSize;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    int4& v = items.v[k];
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    int* totals = warp_totals + (k % 2) * kWarpSize;
    const int inclusive = block_inclusive_scan(v.w, totals);
    const int before = carry + inclusive - v.w;
    v.x += before;
    v.y += before;
    v.z += before;
    v.w += before;
    carry += totals[warps - 1];
  }
  return carry;
}

// The elements of a tile scanned by a block of `threads` threads.
__host__ __device__ long long tile_elements(int threads) { return static_cast<long long>(threads) * kItemsPerThread; }

// v6: a tile's state, one 64-bit word so value and flag are published together:
// flag in the high half (0 nothing yet, 1 the tile's own total, 2 the total of everything up to
// and including the tile), value in the low half.
[[maybe_unused]] constexpr unsigned long long kAggregate = 1ull << 32;
[[maybe_unused]] constexpr unsigned long long kPrefix = 2ull << 32;
constexpr int kSinglePassThreads = 512;

// v6 stages its tile through shared memory, so that each thread owns kItemsPerThread *consecutive*
// elements (one serial scan and one block scan per tile, where scan_items does kVectors block
// scans) while global loads and stores stay load_items' coalesced ones. Row r of the staging area
// holds thread r's elements, then one int4 of padding: rows 80 bytes apart keep the 16-byte
// accesses of a quarter warp in different banks.
constexpr int kStagedRowVectors = kVectors + 1;
[[maybe_unused]] constexpr int kStagedVectors = kSinglePassThreads * kStagedRowVectors;  // 40 KiB

// Where int4 number `vector` of a tile (load_items' numbering) is staged.
__host__ __device__ constexpr int staged_slot(int vector) {
  return (vector / kVectors) * kStagedRowVectors + vector % kVectors;
}

// load_consecutive gives thread t the kItemsPerThread elements of the tile that start at element
// t * kItemsPerThread (zeros past n), and store_consecutive stores them back; s_stage is a
// __shared__ int4[kStagedVectors].
// A whole tile needs no bounds checks: its vectors go straight between global and shared memory,
// which also keeps the kernel at 32 registers (4 blocks of 512 threads per SM) where going through
// load_items and store_items took 55 and halved the blocks per SM.
[[maybe_unused]] __device__ Items load_consecutive(const int* d_in, long long tile_start, int n, int4* s_stage) {
  if (tile_start + tile_elements(blockDim.x) <= n) {
    const int4* d_tile = reinterpret_cast<const int4*>(d_in + tile_start);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int vector = k * blockDim.x + threadIdx.x;
      s_stage[staged_slot(vector)] = d_tile[vector];
    }
  } else {
    const Items striped = load_items(d_in, tile_start, n);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) s_stage[staged_slot(k * blockDim.x + threadIdx.x)] = striped.v[k];
  }
  __syncthreads();
  Items mine;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) mine.v[k] = s_stage[threadIdx.x * kStagedRowVectors + k];
  return mine;
}

[[maybe_unused]] __device__ void store_consecutive(int* d_out, long long tile_start, int n, const Items& mine,
                                                   int4* s_stage) {
  __syncthreads();  // every thread has read its row of the load before any row is overwritten
#pragma unroll
  for (int k = 0; k < kVectors; ++k) s_stage[threadIdx.x * kStagedRowVectors + k] = mine.v[k];
  __syncthreads();
  if (tile_start + tile_elements(blockDim.x) <= n) {
    int4* d_tile = reinterpret_cast<int4*>(d_out + tile_start);
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const int vector = k * blockDim.x + threadIdx.x;
      d_tile[vector] = s_stage[staged_slot(vector)];
    }
  } else {
    Items striped;
#pragma unroll
    for (int k = 0; k < kVectors; ++k) striped.v[k] = s_stage[staged_slot(k * blockDim.x + threadIdx.x)];
    store_items(d_out, tile_start, n, striped);
  }
}

// Sets tile `tile`'s state to flag | value in one 64-bit store: a reader sees both or neither.
[[maybe_unused]] __device__ void publish(unsigned long long* d_states, long long tile, unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(d_states + tile) = flag | static_cast<unsigned>(value);
}

// Tiles of tile_elements(threads) elements that n elements need (host code: the launchers).
int tiles_for(int n, int threads) {
  return static_cast<int>((n + tile_elements(threads) - 1) / tile_elements(threads));
}

}  // namespace
}  // namespace lab05
