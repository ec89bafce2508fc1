// What the scan references share (scan_tiles.cu, scan_array.cu, scan_wide_rows.cu;
// equalization_remap.cuh takes the warp scan for its CDF): warp and block scans, a tile held in
// registers (kVectors int4 a thread) and moved with coalesced 16-byte accesses, the staging that
// gives a thread consecutive elements, and the look-back states of the single-pass scans.
#pragma once
#include <cuda_runtime.h>

namespace bench::reference::scan {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kVectors = 4;                    // int4 a thread holds of a tile
constexpr int kItemsPerThread = 4 * kVectors;  // 16 ints

// Hillis-Steele inside a warp, in registers: lane l adds the value of lane l - offset (int, or
// unsigned for equalization's CDF).
template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T value) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const T before = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += before;
  }
  return value;
}

// Inclusive scan over the block's threads (blockDim.x a multiple of 32): each warp scans, warp 0
// scans the warp totals, every warp adds the totals before it. warp_totals: kWarpSize ints; after
// the call warp_totals[warps - 1] is the block's total.
__device__ __forceinline__ int block_inclusive_scan(int value, int* warp_totals) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  value = warp_inclusive_scan(value);
  if (lane == kWarpSize - 1) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int total = warp_inclusive_scan(lane < warps ? warp_totals[lane] : 0);
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  return warp > 0 ? value + warp_totals[warp - 1] : value;
}

struct Items {
  int4 v[kVectors];
};

// The elements of a tile scanned by a block of `threads` threads; the tiles n elements need.
__host__ __device__ inline long long tile_elements(int threads) {
  return static_cast<long long>(threads) * kItemsPerThread;
}
inline int tiles_for(int n, int threads) {
  return static_cast<int>((n + tile_elements(threads) - 1) / tile_elements(threads));
}

// Vector k of thread t is int4 number k * blockDim.x + t of the tile (each warp load reads 512
// contiguous bytes); zeros past n.
__device__ __forceinline__ Items load_items(const int* d_in, long long tile_start, int n) {
  Items items;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    const long long first = tile_start + 4LL * (k * blockDim.x + threadIdx.x);
    if (first + 3 < n) {
      items.v[k] = *reinterpret_cast<const int4*>(d_in + first);
    } else {
      items.v[k].x = first < n ? d_in[first] : 0;
      items.v[k].y = first + 1 < n ? d_in[first + 1] : 0;
      items.v[k].z = first + 2 < n ? d_in[first + 2] : 0;
      items.v[k].w = first + 3 < n ? d_in[first + 3] : 0;
    }
  }
  return items;
}

__device__ __forceinline__ void store_items(int* d_out, long long tile_start, int n, const Items& items) {
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

// Scans a tile held as load_items holds it, in place, from `carry`; returns carry + its total.
// warp_totals: 2 * kWarpSize ints, alternate rounds on alternate halves (no third barrier).
__device__ __forceinline__ int scan_items(Items& items, int carry, int* warp_totals) {
  const int warps = blockDim.x / kWarpSize;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    int4& v = items.v[k];
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    int* totals = warp_totals + (k % 2) * kWarpSize;
    const int before = carry + block_inclusive_scan(v.w, totals) - v.w;
    v.x += before;
    v.y += before;
    v.z += before;
    v.w += before;
    carry += totals[warps - 1];
  }
  return carry;
}

// Staging through shared memory: row t holds thread t's kItemsPerThread consecutive elements and
// one int4 of padding (rows 80 bytes apart keep a quarter warp's 16-byte accesses in distinct banks).
constexpr int kStagedRowVectors = kVectors + 1;
__host__ __device__ constexpr int staged_slot(int vector) {
  return (vector / kVectors) * kStagedRowVectors + vector % kVectors;
}

// This thread's row of a staged tile, and back.
__device__ __forceinline__ Items read_row(const int4* s_stage) {
  Items mine;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) mine.v[k] = s_stage[threadIdx.x * kStagedRowVectors + k];
  return mine;
}
__device__ __forceinline__ void write_row(int4* s_stage, const Items& mine) {
#pragma unroll
  for (int k = 0; k < kVectors; ++k) s_stage[threadIdx.x * kStagedRowVectors + k] = mine.v[k];
}

// A staged tile to global memory: coalesced int4 stores, element stores at the ragged end.
__device__ __forceinline__ void store_staged(int* d_out, long long tile_start, int n, const int4* s_stage) {
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

// Four consecutive elements scanned in place after `carry`; returns the last (the next carry).
__device__ __forceinline__ int scan_int4(int4& v, int carry) {
  v.x += carry;
  v.y += v.x;
  v.z += v.y;
  v.w += v.z;
  return v.w;
}

// The thread's 16 elements scanned in place; returns their total.
__device__ __forceinline__ int scan_own(Items& items) {
  int total = 0;
#pragma unroll
  for (int k = 0; k < kVectors; ++k) total = scan_int4(items.v[k], total);
  return total;
}
__device__ __forceinline__ void add_to_all(Items& items, int value) {
#pragma unroll
  for (int k = 0; k < kVectors; ++k) {
    items.v[k].x += value;
    items.v[k].y += value;
    items.v[k].z += value;
    items.v[k].w += value;
  }
}

// Single-pass scans: a tile's state is one 64-bit word, flag in the high half (0 nothing yet, 1 its
// own total, 2 the total of everything up to and including it), value in the low half, so a reader
// sees flag and value together.
constexpr unsigned long long kAggregate = 1ull << 32;
constexpr unsigned long long kPrefix = 2ull << 32;

__device__ __forceinline__ void publish(unsigned long long* d_states, long long tile,
                                        unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(d_states + tile) = flag | static_cast<unsigned>(value);
}

// Called by warp 0: the sum of the totals of the tiles before `tile`, walking back 32 states at a
// time until a tile that knows its prefix. Only tiles taken earlier are waited for (tiles are
// numbered in the order they are taken), so the wait ends.
__device__ __forceinline__ int look_back(const unsigned long long* d_states, long long tile) {
  const int lane = threadIdx.x % kWarpSize;
  int exclusive = 0;
  for (long long last = tile - 1;; last -= kWarpSize) {
    const long long mine = last - lane;
    unsigned long long state = kPrefix;  // before tile 0: a prefix of 0
    do {
      if (mine >= 0) state = *reinterpret_cast<const volatile unsigned long long*>(d_states + mine);
    } while (__any_sync(kFullMask, (state >> 32) == 0));
    const unsigned prefix_lanes = __ballot_sync(kFullMask, (state >> 32) == (kPrefix >> 32));
    // Lanes up to the nearest prefix contribute; lanes beyond it are inside that prefix already.
    const int stop = prefix_lanes ? __ffs(prefix_lanes) - 1 : kWarpSize - 1;
    int value = lane <= stop ? static_cast<int>(static_cast<unsigned>(state)) : 0;
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
      value += __shfl_xor_sync(kFullMask, value, offset);
    }
    exclusive += value;
    if (prefix_lanes) return exclusive;
  }
}

// Warp 0 of tile `tile`, whose total is `aggregate`: publishes the total, looks back for the
// tile's prefix, publishes the prefix with the total; thread 0 leaves the prefix in *s_prefix for
// the block, after the caller's barrier.
__device__ __forceinline__ void publish_and_look_back(long long tile, int aggregate, unsigned long long* d_states,
                                                      int* s_prefix) {
  if (threadIdx.x >= kWarpSize) return;
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

}  // namespace bench::reference::scan
