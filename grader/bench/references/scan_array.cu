// Inclusive scans of a whole int32 array: lab 05 v5 and v6 (handout 05), then v7.
//   v5 multi-block   three passes: each tile's total, one block scans the totals, each tile scanned
//                    again from its offset (reads the input twice: at best 2/3 of a copy)
//   v6 single pass   tiles taken in order from a counter; each publishes its total, then looks back
//                    over its predecessors' states for its prefix (decoupled look-back); tiles staged
//                    through shared memory so a thread scans 16 consecutive elements: 0.95x CUB
//   v7 wide rows     v6 with blocks of 128 threads, 48 consecutive elements each (tiles of 6144):
//                    a quarter of the warps meet at each barrier while warp 0 looks back, and each
//                    thread has 12 loads in flight
//   v8 tagged states v7 without the memset launch before each call: each state carries the number
//                    of the call that wrote it (with v6's 512 threads the tags cost registers and
//                    occupancy: 69.6 % of a copy, below)
// Measured on an H100 80GB HBM3 (driver 580.159.04, 2026-11-23, 2^25 int32): v6 0.94-0.97x CUB,
// 74.5-75.4 % of a device copy (CUB 77.7-79.1 %); v7 0.996-1.01x CUB, 78.8-79.1 %. On an H200
// (same driver and date): v6 0.95x, v7 1.01x CUB (70.9 % of a copy; CUB 70.3 %). v8 against v7 in
// the same runs: H100 1.03x CUB where v7 was 1.01x; H200 1.04x and 1.02x where v7 was 1.01x and
// 0.98x. Threads x
// elements a thread, each in one run beside CUB (H100): 128 x 32 0.95x, 128 x 48 1.00x, 128 x 64
// 1.00x, 128 x 80 0.98x, 64 x 64 0.97x, 64 x 96 0.99x, 96 x 64 0.97x, 160 x 48 0.99x, 192 x 48
// 0.98x, 256 x 24 0.92x, 256 x 32 0.95x. Tried after v6, each slower than v6 in the same run:
//   persistent blocks, the next tile copied in (cp.async) while this one is stored   59.4 %
//     (two blocks of 512 an SM: half v6's occupancy)
//   states tagged with the call's number instead of a memset launch                   69.6 %
//   the same, each thread loading its 16 elements directly (no staging)               52.8-54.0 %
//   each warp staging its own 512 elements (__syncwarp instead of two barriers)       66.6 %
//   blocks of 256 or 128 (tiles of 4096 or 2048 elements)                            73.5, 72.1 %
//   the look-back's polls spaced by __nanosleep (32 to 400 ns, doubling)              no gain
// ncu (H100, handouts/figures/bench/h100_profile.csv): v6's warps wait mostly at barriers, 49
// cycles per issued instruction, v7's 25 and CUB's 28; DRAM at 61, 68 and 67 % of its peak. A
// copy's 90 % is still open. Tried after v8 (H100, 2026-11-24, three runs each, % of a copy, v8
// 79.5-80.3 % in the same runs):
//   whole tiles loaded and stored with evict-first hints (__ldcs, __stcs)             67.9-68.4 %
//   loads through the read-only path (__ldg)                                          66.8-67.3 %
//   loads with a 256-byte L2 prefetch (ld.global.nc.L2::256B)                          65.3-65.8 %
//     (the SASS of both shows each load issued just before its shared store: one 16-byte load
//     in flight a thread, where v8's plain loads are all twelve issued first)
//   the same two with the twelve loads written first into registers         79.0-79.4, 78.2-79.0 %
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

// ---- v8: tile states tagged with the number of the call that wrote them -------------------------
// Bits 34..63 of a state hold the call's number (its epoch), so a state left by an earlier call
// reads as "nothing yet" and no memset has to clear the states before each call.
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

// ---- v7 ----------------------------------------------------------------------------------------
// v6's single pass with a quarter of its threads, each owning three times the elements: kV int4
// (4 kV consecutive elements) a thread, staged in rows padded to kV + 1 int4.
constexpr int kWideRowThreads = 128;
constexpr int kWideRowVectors = 12;  // 48 elements a thread, 6144 a tile

// kTagged: v8 (tagged states, tiles numbered by a ticket counter that runs on from call to call).
template <int kThreads, int kV, bool kTagged = false>
__global__ void __launch_bounds__(kThreads)
    v7_wide_rows(const int* d_in, int n, int* d_out, unsigned long long* d_states, unsigned* d_next_tile,
                 unsigned long long* d_tickets = nullptr, unsigned long long first_ticket = 0,
                 unsigned long long epoch = 0) {
  constexpr int kRow = kV + 1;
  constexpr long long kTile = 4LL * kV * kThreads;
  __shared__ int4 s_stage[kThreads * kRow];
  __shared__ int warp_totals[kWarpSize];
  __shared__ long long s_tile;
  __shared__ int s_prefix;
  if (threadIdx.x == 0) {
    if constexpr (kTagged) {
      s_tile = static_cast<long long>(atomicAdd(d_tickets, 1ull) - first_ticket);
    } else {
      s_tile = atomicAdd(d_next_tile, 1u);
    }
  }
  __syncthreads();
  const long long tile = s_tile;
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
  const int add = s_prefix + threads_before;
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    int4 v = mine[k];
    v.x += add;
    v.y += add;
    v.z += add;
    v.w += add;
    s_stage[threadIdx.x * kRow + k] = v;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kV; ++k) {
    const int vector = k * kThreads + threadIdx.x;
    const long long first = start + 4LL * vector;
    const int4 v = s_stage[(vector / kV) * kRow + vector % kV];
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
void launch_wide_rows(const int* d_in, int n, int* d_out, void* d_workspace) {
  if (n == 0) return;
  constexpr long long kTile = 4LL * kV * kThreads;
  const int tiles = static_cast<int>((n + kTile - 1) / kTile);
  auto* d_states = static_cast<unsigned long long*>(d_workspace);
  cudaMemsetAsync(d_workspace, 0, sizeof(unsigned long long) * (tiles + 1));
  v7_wide_rows<kThreads, kV><<<tiles, kThreads>>>(d_in, n, d_out, d_states,
                                                  reinterpret_cast<unsigned*>(d_states + tiles));
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

// v8's states and ticket counter live here, zeroed once when (re)allocated and never again: calls
// are told apart by their epoch (2^30 of them before it wraps). One device, one stream: the
// benchmark's use.
void scan_v8_tagged(const int* d_in, int n, int* d_out) {
  static unsigned long long* d_states = nullptr;  // capacity states, then the ticket counter
  static long long capacity = 0;
  static unsigned long long tickets = 0, epoch = 0;
  if (n == 0) return;
  constexpr long long kTile = 4LL * kWideRowVectors * kWideRowThreads;
  const int tiles = static_cast<int>((n + kTile - 1) / kTile);
  if (tiles > capacity) {
    cudaFree(d_states);
    capacity = tiles;
    cudaMalloc(&d_states, sizeof(unsigned long long) * (capacity + 1));
    cudaMemset(d_states, 0, sizeof(unsigned long long) * (capacity + 1));
    tickets = 0;
    epoch = 0;
  }
  ++epoch;
  v7_wide_rows<kWideRowThreads, kWideRowVectors, true><<<tiles, kWideRowThreads>>>(
      d_in, n, d_out, d_states, nullptr, d_states + capacity, tickets, epoch);
  tickets += tiles;
}

void scan_v7_wide_rows(const int* d_in, int n, int* d_out, void* d_workspace) {
  launch_wide_rows<kWideRowThreads, kWideRowVectors>(d_in, n, d_out, d_workspace);
}

}  // namespace bench::reference
