// The whole-array single pass after lab 05's v6 (scan_array.cu): v7 to v11, each one change. From
// v9 on, the scan relies, as CUB's does, on the GPU starting blocks in index order, which the CUDA
// programming model does not promise (lab 05 asks why its v6 takes tickets). Figures, shapes, where
// the time goes and what was tried: grader/bench/NOTES.md, "scan_wide_rows.cu".
//   v7 wide rows      128 threads x 48 elements: fewer warps wait at barriers, 12 loads in flight
//   v8 tagged states  each state carries its call's number: no memset launch before each call
//   v9 launch order   tiles by blockIdx.x, not a ticket: loads wait for no atomic's round trip
//   v10 wide tiles    64 elements a thread: a quarter fewer tiles, so fewer look-backs
//   v11 split tile    v10's tile doubled, its second half in registers: more data hides the wait
#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

#include <cuda_pipeline.h>

namespace bench::reference {
namespace {

using namespace scan;  // the shared pieces: scan_common.cuh

// Bits 34..63 of a tagged state hold the call's number (its epoch), so a state left by an earlier
// call reads as "nothing yet" and no memset has to clear the states before each call.
constexpr int kEpochShift = 34;
__device__ __forceinline__ void publish_tagged(unsigned long long* d_states, long long tile, unsigned long long flag,
                                               int value, unsigned long long epoch) {
  *reinterpret_cast<volatile unsigned long long*>(d_states + tile) =
      (epoch << kEpochShift) | flag | static_cast<unsigned>(value);
}
// look_back over tagged states: a state of another call is not ready.
__device__ __forceinline__ int look_back_tagged(const unsigned long long* d_states, long long tile,
                                                unsigned long long epoch) {
  const int lane = threadIdx.x % kWarpSize;
  constexpr unsigned long long kFlags = 3ull << 32;
  int exclusive = 0;
  for (long long last = tile - 1;; last -= kWarpSize) {
    const long long mine = last - lane;
    unsigned long long state = kPrefix;
    bool ready = true;
    do {
      if (mine >= 0) {
        state = *reinterpret_cast<const volatile unsigned long long*>(d_states + mine);
        ready = (state >> kEpochShift) == epoch && (state & kFlags) != 0;
      }
    } while (__any_sync(kFullMask, !ready));
    const unsigned prefix_lanes = __ballot_sync(kFullMask, (state & kFlags) == kPrefix);
    const int stop = prefix_lanes ? __ffs(prefix_lanes) - 1 : kWarpSize - 1;
    int value = lane <= stop ? static_cast<int>(static_cast<unsigned>(state)) : 0;
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_xor_sync(kFullMask, value, offset);
    exclusive += value;
    if (prefix_lanes) return exclusive;
  }
}

// Warp 0 of tile `tile` over tagged states: publish_and_look_back's steps (scan_common.cuh).
__device__ __forceinline__ void publish_and_look_back_tagged(long long tile, int aggregate, unsigned long long* d_states,
                                                             unsigned long long epoch, int* s_prefix) {
  if (threadIdx.x >= kWarpSize) return;
  int prefix = 0;
  if (tile == 0) {
    if (threadIdx.x == 0) publish_tagged(d_states, 0, kPrefix, aggregate, epoch);
  } else {
    if (threadIdx.x == 0) publish_tagged(d_states, tile, kAggregate, aggregate, epoch);
    prefix = look_back_tagged(d_states, tile, epoch);
    if (threadIdx.x == 0) publish_tagged(d_states, tile, kPrefix, prefix + aggregate, epoch);
  }
  if (threadIdx.x == 0) *s_prefix = prefix;
}

// Four elements from `first` on, zeros past n; their store, nothing past n; all four plus `add`.
__device__ __forceinline__ int4 load_guarded(const int* d_in, long long first, int n) {
  return make_int4(first < n ? d_in[first] : 0, first + 1 < n ? d_in[first + 1] : 0,
                   first + 2 < n ? d_in[first + 2] : 0, first + 3 < n ? d_in[first + 3] : 0);
}
__device__ __forceinline__ void store_guarded(int* d_out, long long first, int n, int4 v) {
  if (first < n) d_out[first] = v.x;
  if (first + 1 < n) d_out[first + 1] = v.y;
  if (first + 2 < n) d_out[first + 2] = v.z;
  if (first + 3 < n) d_out[first + 3] = v.w;
}
__device__ __forceinline__ int4 plus(int4 v, int add) { return make_int4(v.x + add, v.y + add, v.z + add, v.w + add); }

// Int4 number `vector` of a tile staged in rows of kV int4 padded to kV + 1.
template <int kV>
__device__ __forceinline__ int staged(int vector) {
  return (vector / kV) * (kV + 1) + vector % kV;
}

// A staged tile (v11: half a tile) of kV int4 a thread, plus `add`, to d_out from `tile_start`
// (nothing past n).
template <int kThreads, int kV>
__device__ __forceinline__ void store_staged_rows(int* d_out, long long tile_start, int n, bool whole,
                                                  const int4* s_stage, int add) {
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    const int vector = k * kThreads + threadIdx.x;
    const long long first = tile_start + 4LL * vector;
    const int4 v = plus(s_stage[staged<kV>(vector)], add);
    if (whole) {
      reinterpret_cast<int4*>(d_out + tile_start)[vector] = v;
    } else {
      store_guarded(d_out, first, n, v);
    }
  }
}

// Where a tile's number comes from. kCounter (v7): a counter the memset before each call zeroes
// with the plain states. kTickets (v8): a ticket counter that runs on from call to call, with
// tagged states. kLaunch (v9, v10): blockIdx.x, with tagged states.
enum class Order { kCounter, kTickets, kLaunch };

// kV int4 (4 kV consecutive elements) a thread, staged in rows padded to kV + 1 int4. kParked (v9,
// v10): the row goes back to shared memory scanned before the look-back, the tile's prefix added
// on the way out.
template <int kThreads, int kV, Order kOrder, bool kParked>
__global__ void __launch_bounds__(kThreads)
    wide_rows(const int* d_in, int n, int* d_out, unsigned long long* d_states, unsigned long long* d_counter,
              unsigned long long first_ticket, unsigned long long epoch) {
  constexpr bool kTagged = kOrder != Order::kCounter;
  constexpr int kRow = kV + 1;
  constexpr long long kTile = 4LL * kV * kThreads;
  __shared__ int4 s_stage[kThreads * kRow];
  __shared__ int warp_totals[kWarpSize];
  __shared__ long long s_tile;
  __shared__ int s_prefix;
  long long tile = blockIdx.x;
  if constexpr (kOrder != Order::kLaunch) {
    if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(d_counter, 1ull) - first_ticket);
    __syncthreads();
    tile = s_tile;
  }
  const long long start = tile * kTile;
  const bool whole = start + kTile <= n;
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    const int vector = k * kThreads + threadIdx.x;
    const long long first = start + 4LL * vector;  // here, not in the branch: 64 registers, not 71
    s_stage[staged<kV>(vector)] =
        whole ? reinterpret_cast<const int4*>(d_in + start)[vector] : load_guarded(d_in, first, n);
  }
  __syncthreads();
  int4 mine[kV];
  int own = 0;
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    mine[k] = s_stage[threadIdx.x * kRow + k];
    own = scan_int4(mine[k], own);
  }
  const int threads_before = block_inclusive_scan(own, warp_totals) - own;
  const int aggregate = warp_totals[kThreads / kWarpSize - 1];
  // Parked: each thread writes back only its own row, read back by others after the barrier below.
  auto write_row = [&](int add) {
#pragma unroll
    for (int k = 0; k < kV; ++k) s_stage[threadIdx.x * kRow + k] = plus(mine[k], add);
  };
  if constexpr (kParked) write_row(threads_before);
  if constexpr (kTagged) {
    publish_and_look_back_tagged(tile, aggregate, d_states, epoch, &s_prefix);
  } else {
    publish_and_look_back(tile, aggregate, d_states, &s_prefix);
  }
  __syncthreads();
  int add_on_store = s_prefix;
  if constexpr (!kParked) {
    write_row(s_prefix + threads_before);
    add_on_store = 0;
    __syncthreads();
  }
  store_staged_rows<kThreads, kV>(d_out, start, n, whole, s_stage, add_on_store);
}

// A thread's staged row in two passes over shared memory, so no register holds the row: its sum,
// then the row scanned in place from `carry`.
template <int kV>
__device__ __forceinline__ int row_sum(const int4* row) {
  int sum = 0;
#pragma unroll
  for (int k = 0; k < kV; ++k) sum += row[k].x + row[k].y + row[k].z + row[k].w;
  return sum;
}
template <int kV>
__device__ __forceinline__ void scan_row(int4* row, int carry) {
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    int4 v = row[k];
    carry = scan_int4(v, carry);
    row[k] = v;
  }
}

// v11: a tile of two halves of kV int4 a thread. The first goes to the staged rows by asynchronous
// copies (no register on the way), the second into registers, striped as loaded; a sum needs no
// transposition, so the tile's total, and its look-back, wait for nothing else. The second half is
// staged and scanned only once the first is out. Five blocks an SM (96 registers).
template <int kThreads, int kV>
__global__ void __launch_bounds__(kThreads, 5)
    split_tile(const int* d_in, int n, int* d_out, unsigned long long* d_states, unsigned long long epoch) {
  constexpr long long kHalf = 4LL * kV * kThreads;
  __shared__ int4 s_stage[kThreads * (kV + 1)];
  __shared__ int warp_totals[kWarpSize], held_totals[kWarpSize];
  __shared__ int s_prefix;
  const long long tile = blockIdx.x;
  const long long start = tile * 2 * kHalf;
  const bool whole = start + 2 * kHalf <= n;
  int4* my_row = s_stage + threadIdx.x * (kV + 1);
  int4 held[kV];
  if (whole) {
    const int4* d_tile = reinterpret_cast<const int4*>(d_in + start);
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      const int vector = k * kThreads + threadIdx.x;
      __pipeline_memcpy_async(&s_stage[staged<kV>(vector)], d_tile + vector, sizeof(int4));
    }
    __pipeline_commit();
#pragma unroll
    for (int k = 0; k < kV; ++k) held[k] = d_tile[kV * kThreads + k * kThreads + threadIdx.x];
    __pipeline_wait_prior(0);
  } else {
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      const int vector = k * kThreads + threadIdx.x;
      s_stage[staged<kV>(vector)] = load_guarded(d_in, start + 4LL * vector, n);
      held[k] = load_guarded(d_in, start + kHalf + 4LL * vector, n);
    }
  }
  __syncthreads();
  const int own = row_sum<kV>(my_row);
  const int before = block_inclusive_scan(own, warp_totals) - own;
  const int first_total = warp_totals[kThreads / kWarpSize - 1];
  int held_sum = 0;
#pragma unroll
  for (int k = 0; k < kV; ++k) held_sum += held[k].x + held[k].y + held[k].z + held[k].w;
  block_inclusive_scan(held_sum, held_totals);
  scan_row<kV>(my_row, before);
  publish_and_look_back_tagged(tile, first_total + held_totals[kThreads / kWarpSize - 1], d_states, epoch, &s_prefix);
  __syncthreads();
  const int prefix = s_prefix;
  store_staged_rows<kThreads, kV>(d_out, start, n, whole, s_stage, prefix);
  __syncthreads();  // the second half into the rows the first has left
#pragma unroll
  for (int k = 0; k < kV; ++k) s_stage[staged<kV>(k * kThreads + threadIdx.x)] = held[k];
  __syncthreads();
  const int own_held = row_sum<kV>(my_row);
  scan_row<kV>(my_row, prefix + first_total + block_inclusive_scan(own_held, warp_totals) - own_held);
  __syncthreads();
  store_staged_rows<kThreads, kV>(d_out, start + kHalf, n, whole, s_stage, 0);
}

template <int kThreads, int kV>
constexpr int tiles_of(int n) {
  constexpr long long kTile = 4LL * kV * kThreads;
  return static_cast<int>((n + kTile - 1) / kTile);
}

// The tagged states and the ticket counter of v8 to v11, zeroed once when (re)allocated and never
// again: calls are told apart by their epoch (2^30 of them before it wraps). One device, one
// stream: the benchmark's use.
struct TaggedStates {
  unsigned long long* d_states = nullptr;  // capacity states, then the ticket counter
  long long capacity = 0;
  unsigned long long tickets = 0, epoch = 0;
};
TaggedStates& next_call(int tiles) {
  static TaggedStates s;
  if (tiles > s.capacity) {
    cudaFree(s.d_states);
    s.capacity = tiles;
    cudaMalloc(&s.d_states, sizeof(unsigned long long) * (s.capacity + 1));
    cudaMemset(s.d_states, 0, sizeof(unsigned long long) * (s.capacity + 1));
    s.tickets = 0;
    s.epoch = 0;
  }
  ++s.epoch;
  return s;
}

template <int kThreads, int kV, Order kOrder, bool kParked>
void launch_tagged(const int* d_in, int n, int* d_out) {
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  const int tiles = tiles_of<kThreads, kV>(n);
  TaggedStates& s = next_call(tiles);
  wide_rows<kThreads, kV, kOrder, kParked><<<tiles, kThreads>>>(d_in, n, d_out, s.d_states,
                                                                 s.d_states + s.capacity, s.tickets, s.epoch);
  if (kOrder == Order::kTickets) s.tickets += tiles;  // v9 and v10 take none
}

constexpr int kWideRowThreads = 128;
constexpr int kWideRowVectors = 12;  // v7 to v9: 48 elements a thread, 6144 a tile
constexpr int kWideTileVectors = 16;  // v10: 64 elements a thread, 8192 a tile

}  // namespace

void scan_v7_wide_rows(const int* d_in, int n, int* d_out, void* d_workspace) {
  if (n == 0) return;
  const int tiles = tiles_of<kWideRowThreads, kWideRowVectors>(n);
  auto* d_states = static_cast<unsigned long long*>(d_workspace);
  cudaMemsetAsync(d_workspace, 0, sizeof(unsigned long long) * (tiles + 1));  // states and counter
  wide_rows<kWideRowThreads, kWideRowVectors, Order::kCounter, false>
      <<<tiles, kWideRowThreads>>>(d_in, n, d_out, d_states, d_states + tiles, 0, 0);
}

void scan_v8_tagged(const int* d_in, int n, int* d_out) {
  launch_tagged<kWideRowThreads, kWideRowVectors, Order::kTickets, false>(d_in, n, d_out);
}

void scan_v9_launch_order(const int* d_in, int n, int* d_out) {
  launch_tagged<kWideRowThreads, kWideRowVectors, Order::kLaunch, true>(d_in, n, d_out);
}

void scan_v10_wide_tiles(const int* d_in, int n, int* d_out) {
  launch_tagged<kWideRowThreads, kWideTileVectors, Order::kLaunch, true>(d_in, n, d_out);
}

void scan_v11_split_tile(const int* d_in, int n, int* d_out) {
  if (n == 0) return;
  const int tiles = tiles_of<kWideRowThreads, 2 * kWideTileVectors>(n);
  TaggedStates& s = next_call(tiles);
  split_tile<kWideRowThreads, kWideTileVectors><<<tiles, kWideRowThreads>>>(d_in, n, d_out, s.d_states, s.epoch);
}

}  // namespace bench::reference
