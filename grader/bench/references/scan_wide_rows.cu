// The whole-array single pass after lab 05's v6 (scan_array.cu): v7 to v11, each one change.
//   v7 wide rows      v6 with blocks of 128 threads, 48 consecutive elements each (tiles of 6144):
//                     a quarter of the warps meet at each barrier while warp 0 looks back, and each
//                     thread has 12 loads in flight
//   v8 tagged states  v7 without the memset launch before each call: each state carries the number
//                     of the call that wrote it
//   v9 launch order   v8 with tiles numbered by blockIdx.x instead of a ticket, so a block's loads
//                     no longer wait for an atomic's round trip. Like CUB's scan, it relies on the
//                     GPU starting blocks in index order, which the CUDA programming model does not
//                     promise: a block then waits only for blocks that already started (lab 05 asks
//                     why its v6 takes tickets). Each thread's scanned row waits in shared memory
//                     during the look-back, which keeps v8's 64 registers (72 with the row kept in
//                     registers: 7 blocks an SM instead of 8)
//   v10 wide tiles    v9 with 64 elements a thread (tiles of 8192): a quarter fewer tiles, so a
//                     quarter fewer look-backs for the same data; 80 registers and 34 KiB of shared
//                     memory, 6 blocks an SM
//   v11 split tile    v10's tile doubled, its second half held in registers through the
//                     look-back: registers idle while warp 0 waits hold data, and each SM holds 5
//                     tiles of 64 KiB instead of 6 of 32 KiB
// Measured on an H100 80GB HBM3 (driver 580.159.04, 2026-11-23, 2^25 int32): v7 0.996-1.01x CUB,
// 78.8-79.1 % of a device copy (CUB 77.7-79.1 %). On an H200 (same driver and date) v7 1.01x CUB
// (70.9 % of a copy; CUB 70.3 %). v8 against v7 in the same runs: H100 1.03x CUB where v7 was
// 1.01x; H200 1.04x and 1.02x where v7 was 1.01x and 0.98x. v7's threads x elements a thread, each
// in one run beside CUB (H100): 128 x 32 0.95x, 128 x 48 1.00x, 128 x 64 1.00x, 128 x 80 0.98x,
// 64 x 64 0.97x, 64 x 96 0.99x, 96 x 64 0.97x, 160 x 48 0.99x, 192 x 48 0.98x, 256 x 24 0.92x,
// 256 x 32 0.95x. Tried after v8 (H100, 2026-11-24, three runs each, % of a copy, v8 79.5-80.3 %
// in the same runs):
//   whole tiles loaded and stored with evict-first hints (__ldcs, __stcs)             67.9-68.4 %
//   loads through the read-only path (__ldg)                                          66.8-67.3 %
//   loads with a 256-byte L2 prefetch (ld.global.nc.L2::256B)                          65.3-65.8 %
//     (the SASS of both shows each load issued just before its shared store: one 16-byte load
//     in flight a thread, where v8's plain loads are all twelve issued first)
//   the same two with the twelve loads written first into registers         79.0-79.4, 78.2-79.0 %
// Where the last fifth goes (H100, 2026-11-24, scratch kernels timed in turn with a
// cudaMemcpyAsync, medians of 40 to 60; v8's shape with its rows parked as in v9, 64 registers as
// v8, ran at 79.4-80.3 % of the copy): the same kernel with the look-back taken out (each tile
// scanned from 0, a wrong result) runs at 97-100 %, so the look-back costs the rest. Each tile
// timed by %globaltimer: its loads took 4.8 us (median; 7.8 at the 90th percentile), its
// look-back 7.9 us, about 8 polls of the states of about 1 us each. The last of a tile's
// predecessors published its total 4.1 us (median) after the tile did; 91 % of the tiles resolved
// right after the tile where they found a prefix (65 back, median) published it; the SMs' median
// load times ranged from 3.4 to 6.8 us. Tiles by blockIdx.x: 82.8-83.3 % (80.2-82.2 with the rows
// held in registers); 64 elements a thread on top: 85.1-85.2 % (40 or 56: 83.2-84.0; 64 threads x
// 96: 81.7-81.8; 256 x 32: 82.9-83.3; 256 x 24: 76.7-77.0). Fewer tiles resident, fewer waits
// hidden (blocks an SM cut by unused shared memory, same run): v10 6 blocks 84.7-84.9 %, 4 blocks
// 78.9-79.3, 3 blocks 73.1-73.2; v9 8 blocks 82.9-83.1, 6 blocks 80.0-80.6, 4 blocks 72.8-73.0;
// 128 x 80, 5 blocks an SM: 85.0-85.2. Hence v11, whose halves of 64 and 64 elements a thread
// (5 blocks an SM) ran at 86.5-87.1 % in the same scratch runs, and 86.6-86.7 with halves of 64
// and 48 (6 blocks an SM); on an H200 78.1-79.1 and 78.8 % where v10's shape ran at 76.4 %. Written
// as one loop over its two halves, v11 ran no faster than v10 (83.4-84.1 %, 96 registers both
// ways); written straight, as below, 86.9-87.2 %. In the benchmark (2026-11-24, H100 08:07, H200
// 08:09 UTC), % of a copy: v9 82.8 and 74.7, v10 84.1 and 75.1, v11 85.6 (1.10x CUB) and 78.8
// (1.12x CUB).
// Tried, each slower than v9 or v10:
//   polls reading 4 to 16 states a lane (128 to 512 tiles a round trip)                63-78 %
//   a two-level look-back (each group of 32 tiles also publishes its sum and prefix)  78.2-81.0 %
//   persistent blocks, the next tile copied in (cp.async) before the look-back         48-61 %
//   each tile summed by one block and scanned, from L2, by a block launched later     47-70 %
//   tiles copied in by cp.async, rows scanned in place: 9 or 13 blocks an SM           75-79 %
// Tried after v11 (2026-11-24, 13:06-13:19 UTC, scratch kernels timed in turn with a
// cudaMemcpyAsync, medians of 60 to 100; % of that copy, H100 / H200; v11 85.6-86.1 / 78.6-80.1):
//   v11 with no look-back at all (each tile scanned from 0, a wrong result)   88.0-91.9 / 84.6-86.5
//   v9's shape with no look-back (H200) 98.0-98.9, with it 75.0-75.4; v10's 97.5-98.1 and 76.0-76.9
//   so v11 hides the wait for its predecessors at the cost of streaming: on the H200 the look-back
//   costs v9 and v10 over 20 points, and v11's shape without one stays under 90 %.
//   clusters of 2, 4 or 8 tiles sharing one look-back (distributed shared memory)
//                                                                             82.7-84.5 / 75.4-77.4
//   persistent blocks, six tiles of 32 KiB each in flight by bulk copies (TMA), tiles dealt in
//     turn: with no look-back (H200) 78.6-84.1; with it 30.0-60.7 (each round waits for its
//     slowest SM)
//   polls of 2, 4 or 8 states a lane, a ready state never read again (H200): v10 72.1-74.8 where
//     one a lane ran 75.1-75.6, v11 74.4-76.8 where one ran 79.5-80.1: the wait is for loads, not
//     for the walk back
//   whole tiles with no guard, the partial last tile on its own path (H200)              74.3-78.8
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
