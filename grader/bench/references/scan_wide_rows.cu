// The whole-array single pass after lab 05's v6 (scan_array.cu): v7 to v10, each one change.
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
// 128 x 80, 5 blocks an SM: 85.0-85.2. Tried, each slower than v9 or v10:
//   polls reading 4 to 16 states a lane (128 to 512 tiles a round trip)                63-78 %
//   a two-level look-back (each group of 32 tiles also publishes its sum and prefix)  78.2-81.0 %
//   persistent blocks, the next tile copied in (cp.async) before the look-back         48-61 %
//   each tile summed by one block and scanned, from L2, by a block launched later     47-70 %
//   tiles copied in by cp.async, rows scanned in place: 9 or 13 blocks an SM           75-79 %
#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

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
    const long long first = start + 4LL * vector;
    int4 v;
    if (whole) {
      v = reinterpret_cast<const int4*>(d_in + start)[vector];
    } else {
      v.x = first < n ? d_in[first] : 0;
      v.y = first + 1 < n ? d_in[first + 1] : 0;
      v.z = first + 2 < n ? d_in[first + 2] : 0;
      v.w = first + 3 < n ? d_in[first + 3] : 0;
    }
    s_stage[(vector / kV) * kRow + vector % kV] = v;
  }
  __syncthreads();
  int4 mine[kV];
  int own = 0;
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    int4 v = s_stage[threadIdx.x * kRow + k];
    v.x += own;
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    own = v.w;
    mine[k] = v;
  }
  const int threads_before = block_inclusive_scan(own, warp_totals) - own;
  const int aggregate = warp_totals[kThreads / kWarpSize - 1];
  // Parked: each thread writes back only its own row, read back by others after the barrier below.
  auto write_row = [&](int add) {
#pragma unroll
    for (int k = 0; k < kV; ++k) {
      int4 v = mine[k];
      v.x += add;
      v.y += add;
      v.z += add;
      v.w += add;
      s_stage[threadIdx.x * kRow + k] = v;
    }
  };
  if constexpr (kParked) write_row(threads_before);
  if constexpr (kTagged) {
    if (threadIdx.x < kWarpSize) {
      int prefix = 0;
      if (tile == 0) {
        if (threadIdx.x == 0) publish_tagged(d_states, 0, kPrefix, aggregate, epoch);
      } else {
        if (threadIdx.x == 0) publish_tagged(d_states, tile, kAggregate, aggregate, epoch);
        prefix = look_back_tagged(d_states, tile, epoch);
        if (threadIdx.x == 0) publish_tagged(d_states, tile, kPrefix, prefix + aggregate, epoch);
      }
      if (threadIdx.x == 0) s_prefix = prefix;
    }
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
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    const int vector = k * kThreads + threadIdx.x;
    const long long first = start + 4LL * vector;
    int4 v = s_stage[(vector / kV) * kRow + vector % kV];
    v.x += add_on_store;
    v.y += add_on_store;
    v.z += add_on_store;
    v.w += add_on_store;
    if (whole) {
      reinterpret_cast<int4*>(d_out + start)[vector] = v;
    } else {
      if (first < n) d_out[first] = v.x;
      if (first + 1 < n) d_out[first + 1] = v.y;
      if (first + 2 < n) d_out[first + 2] = v.z;
      if (first + 3 < n) d_out[first + 3] = v.w;
    }
  }
}

template <int kThreads, int kV>
constexpr int tiles_of(int n) {
  constexpr long long kTile = 4LL * kV * kThreads;
  return static_cast<int>((n + kTile - 1) / kTile);
}

// The tagged states and the ticket counter of v8 to v10, zeroed once when (re)allocated and never
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

}  // namespace bench::reference
