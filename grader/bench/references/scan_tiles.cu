// Block-local inclusive scans of int32 tiles: lab 05 v1 to v4 (handout 05). Each tile of `tile`
// elements is scanned on its own; the whole-array story goes on in scan_array.cu, then
// scan_wide_rows.cu.
//   v1 Hillis-Steele    one thread per element, log2(tile) steps over two shared buffers
//   v2 Blelloch         up-sweep then down-sweep: O(n) additions instead of O(n log n)
//   v3 Blelloch padded  v2 with a padding slot every 32 elements: strided steps hit distinct banks
//   v4 warp shuffle     registers instead of shared memory: warp scans with __shfl_up_sync
// Figures: handouts/benchmark.md (the benchmark's runs); notes: grader/bench/NOTES.md.
#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

namespace bench::reference {
namespace {

using scan::kWarpSize;

// v1: step k adds the element 2^k places back, reading one buffer and writing the other.
__global__ void v1_hillis_steele(const int* d_in, int n, int* d_out) {
  __shared__ int buffer[2][kMaxTile];
  const int t = threadIdx.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + t;
  buffer[0][t] = i < n ? d_in[i] : 0;
  __syncthreads();
  int from = 0;
  for (int offset = 1; offset < static_cast<int>(blockDim.x); offset *= 2) {
    buffer[1 - from][t] = t >= offset ? buffer[from][t] + buffer[from][t - offset] : buffer[from][t];
    __syncthreads();
    from = 1 - from;
  }
  if (i < n) d_out[i] = buffer[from][t];
}

// v3: one padding slot after every 32 elements, so elements 32 apart land in different banks.
template <bool kPadded>
__device__ int slot(int index) {
  return kPadded ? index + (index >> 5) : index;
}

// v2 and v3: a tile of 2 * blockDim.x elements, two per thread, in place in shared memory.
template <bool kPadded>
__global__ void v23_blelloch(const int* d_in, int n, int* d_out) {
  __shared__ int data[kMaxTile + kMaxTile / 32];
  const int tile = 2 * blockDim.x;
  const int t = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * tile;
  for (int j = t; j < tile; j += blockDim.x) data[slot<kPadded>(j)] = base + j < n ? d_in[base + j] : 0;
  __syncthreads();
  for (int stride = 1; stride < tile; stride *= 2) {  // up-sweep: (t+1)*2s-1 adds the element s before
    const int j = (t + 1) * 2 * stride - 1;
    if (j < tile) data[slot<kPadded>(j)] += data[slot<kPadded>(j - stride)];
    __syncthreads();
  }
  for (int stride = tile / 4; stride >= 1; stride /= 2) {  // down-sweep: pushed to the element s after
    const int j = (t + 1) * 2 * stride - 1;
    if (j + stride < tile) data[slot<kPadded>(j + stride)] += data[slot<kPadded>(j)];
    __syncthreads();
  }
  for (int j = t; j < tile; j += blockDim.x) {
    if (base + j < n) d_out[base + j] = data[slot<kPadded>(j)];
  }
}

// v4: a block scan from warp scans.
__global__ void v4_warp_shuffle(const int* d_in, int n, int* d_out) {
  __shared__ int warp_totals[kWarpSize];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int value = scan::block_inclusive_scan(i < n ? d_in[i] : 0, warp_totals);
  if (i < n) d_out[i] = value;
}

int tiles(int n, int tile) { return (n + tile - 1) / tile; }

}  // namespace

void scan_v1_hillis_steele(const int* d_in, int n, int* d_out, int tile) {
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  v1_hillis_steele<<<tiles(n, tile), tile>>>(d_in, n, d_out);
}

void scan_v2_blelloch(const int* d_in, int n, int* d_out, int tile) {
  if (n == 0) return;
  v23_blelloch<false><<<tiles(n, tile), tile / 2>>>(d_in, n, d_out);
}

void scan_v3_blelloch_padded(const int* d_in, int n, int* d_out, int tile) {
  if (n == 0) return;
  v23_blelloch<true><<<tiles(n, tile), tile / 2>>>(d_in, n, d_out);
}

void scan_v4_warp_shuffle(const int* d_in, int n, int* d_out, int tile) {
  if (n == 0) return;
  v4_warp_shuffle<<<tiles(n, tile), tile>>>(d_in, n, d_out);
}

}  // namespace bench::reference
