// Lab 05 scans that are wrong on purpose: the grader must catch each one (meson suite `selftest`).
// Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty               nothing is written
//   2 in_place            Hillis-Steele in one shared buffer: a step reads values the same step wrote
//   3 off_by_one_tail     v5's grid is rounded down, so the last partial tile is never scanned
//   4 all_warps_counted   the warp marks sit outside the branch: every warp counts in every iteration
//   5 no_tile_offsets     v5 scans each tile but never adds the totals of the tiles before it
//   6 out_of_bounds       v4 stores without checking i < n, past the end of the output
//   7 unguarded_shuffle   v4's warp scan adds the shuffled value in lanes below the offset too
//   8 no_shuffles         v4's warp scan goes through shared memory: right answers, no SHFL
//                         (caught by the technique check, not by a test)
// Everything else is a plain correct scan, so only the defect can fail a test.
#include "lab05_scan_warps.cuh"

namespace lab05 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ void mark(WarpActivity activity, int step, bool adds) {
  if (kWrongCase == 4 || adds) mark_warp_active(activity, step);
}

__global__ void hillis_steele(const int* d_in, int n, int* d_out, WarpActivity activity) {
  __shared__ int buffer[2][kMaxTile];
  const int t = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + t;
  buffer[0][t] = i < n ? d_in[i] : 0;
  __syncthreads();
  int from = 0, step = 0;
  for (int offset = 1; offset < static_cast<int>(blockDim.x); offset *= 2, ++step) {
    mark(activity, step, t >= offset);
    const int to = kWrongCase == 2 ? from : 1 - from;
    buffer[to][t] = buffer[from][t] + (t >= offset ? buffer[from][t - offset] : 0);
    __syncthreads();
    from = to;
  }
  if (i < n && kWrongCase != 1) d_out[i] = buffer[from][t];
}

template <bool kPadded>
__device__ int slot(int j) { return kPadded ? j + (j >> 5) : j; }

template <bool kPadded>
__global__ void blelloch(const int* d_in, int n, int* d_out, WarpActivity activity) {
  __shared__ int data[kMaxTile + kMaxTile / 32];
  const int tile = 2 * blockDim.x, t = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  for (int j = t; j < tile; j += blockDim.x) data[slot<kPadded>(j)] = base + j < n ? d_in[base + j] : 0;
  __syncthreads();
  int step = 0;
  for (int s = 1; s < tile; s *= 2, ++step) {
    const int j = (t + 1) * 2 * s - 1;
    mark(activity, step, j < tile);
    if (j < tile) data[slot<kPadded>(j)] += data[slot<kPadded>(j - s)];
    __syncthreads();
  }
  for (int s = tile / 4; s >= 1; s /= 2, ++step) {
    const int j = (t + 1) * 2 * s - 1;
    mark(activity, step, j + s < tile);
    if (j + s < tile) data[slot<kPadded>(j + s)] += data[slot<kPadded>(j)];
    __syncthreads();
  }
  for (int j = t; j < tile; j += blockDim.x) {
    if (base + j < n && kWrongCase != 1) d_out[base + j] = data[slot<kPadded>(j)];
  }
}

__device__ int warp_scan(int value) {
  const int lane = threadIdx.x % 32;
  if constexpr (kWrongCase == 8) {
    __shared__ int scratch[kMaxTile];
    scratch[threadIdx.x] = value;
    __syncwarp();
    for (int offset = 1; offset < 32; offset *= 2) {
      const int before = lane >= offset ? scratch[threadIdx.x - offset] : 0;
      __syncwarp();
      value += before;
      scratch[threadIdx.x] = value;
      __syncwarp();
    }
    return value;
  }
  for (int offset = 1; offset < 32; offset *= 2) {
    const int before = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset || kWrongCase == 7) value += before;
  }
  return value;
}

// Block scan of one element per thread; also leaves the block's total in *total.
__device__ int block_scan(int value, int* total) {
  __shared__ int warp_totals[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  value = warp_scan(value);
  if (lane == 31) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int w = warp_scan(lane < warps ? warp_totals[lane] : 0);
    if (lane < warps) warp_totals[lane] = w;
  }
  __syncthreads();
  *total = warp_totals[warps - 1];
  const int result = warp > 0 ? value + warp_totals[warp - 1] : value;
  __syncthreads();
  return result;
}

// Scans tiles of blockDim.x elements; the tile's total goes to d_totals when it is not null.
__global__ void warp_shuffle_kernel(const int* d_in, int n, int* d_out, int* d_totals) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  int total = 0;
  const int value = block_scan(i < n ? d_in[i] : 0, &total);
  if ((i < n || kWrongCase == 6) && kWrongCase != 1) d_out[i] = value;
  if (d_totals != nullptr && threadIdx.x == 0) d_totals[blockIdx.x] = total;
}

// One block: the tile totals become exclusive offsets, in place.
__global__ void totals_to_offsets(int* d_totals, int count) {
  int carry = 0;
  for (int start = 0; start < count; start += blockDim.x) {
    const int i = start + threadIdx.x;
    const int value = i < count ? d_totals[i] : 0;
    int total = 0;
    const int inclusive = block_scan(value, &total);
    if (i < count) d_totals[i] = carry + inclusive - value;
    carry += total;
  }
}

__global__ void add_offsets(int* d_out, int n, const int* d_offsets) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) d_out[i] += d_offsets[blockIdx.x];
}

constexpr int kTile = 1024;

}  // namespace

void scan_v1_hillis_steele(const int* d_in, int n, int* d_out, BlockScanLaunch l, WarpActivity a) {
  if (n == 0) return;
  hillis_steele<<<(n + l.elements_per_block - 1) / l.elements_per_block, l.elements_per_block>>>(d_in, n, d_out, a);
}
void scan_v2_blelloch(const int* d_in, int n, int* d_out, BlockScanLaunch l, WarpActivity a) {
  if (n == 0) return;
  blelloch<false><<<(n + l.elements_per_block - 1) / l.elements_per_block, l.elements_per_block / 2>>>(d_in, n, d_out, a);
}
void scan_v3_blelloch_padded(const int* d_in, int n, int* d_out, BlockScanLaunch l, WarpActivity a) {
  if (n == 0) return;
  blelloch<true><<<(n + l.elements_per_block - 1) / l.elements_per_block, l.elements_per_block / 2>>>(d_in, n, d_out, a);
}
void scan_v4_warp_shuffle(const int* d_in, int n, int* d_out, BlockScanLaunch l) {
  if (n == 0) return;
  const int tile = l.elements_per_block;
  // The out-of-bounds defect writes the whole last tile: at least one element past n.
  const int blocks = kWrongCase == 6 ? n / tile + 1 : (n + tile - 1) / tile;
  warp_shuffle_kernel<<<blocks, tile>>>(d_in, n, d_out, nullptr);
}

std::size_t scan_workspace_bytes(int n) { return sizeof(int) * (static_cast<std::size_t>(n) / kTile + 2); }

void scan_v5_multi_block(const int* d_in, int n, int* d_out, void* d_workspace, WholeArrayLaunch) {
  if (n == 0) return;
  int tiles = (n + kTile - 1) / kTile;
  if (kWrongCase == 3) tiles = n / kTile > 0 ? n / kTile : 1;
  int* d_totals = static_cast<int*>(d_workspace);
  warp_shuffle_kernel<<<tiles, kTile>>>(d_in, n, d_out, d_totals);
  if (kWrongCase == 5) return;
  totals_to_offsets<<<1, 1024>>>(d_totals, tiles);
  add_offsets<<<tiles, kTile>>>(d_out, n, d_totals);
}
void scan_v6_single_pass(const int* d_in, int n, int* d_out, void* d_workspace) {
  scan_v5_multi_block(d_in, n, d_out, d_workspace, {kTile});
}

WholeArrayLaunch fastest_multi_block_launch() { return {kTile}; }

}  // namespace lab05
