// 256 bins of bytes: lab 03 (b) (handout 03), then lab 06's stage 1 (handout 06), then v3.
//   v1 thread per bin  blocks of 256 threads, thread t zeroes and merges bin t; one byte per thread
//                      per step: 12 % of the read bandwidth (H100), the loads are too small
//   v2 bank copies     sixteen bytes per load, two loads per trip; 32 copies of the bins, lane l's
//                      in bank l, so no two lanes of a warp wait on one bank: 91 % (H100), 83 % (H200)
//   v3 prefetch        v2 whose next trip's loads are issued before this trip's atomics (32 bytes
//                      always in flight per thread, where v2 had none while counting), first loads
//                      before the zeroing, 2 x 1024 threads per SM (half v2's blocks: half the
//                      zeroing and merging), a 4-way merge on every thread (byte_counting.cuh)
// Measured on an H100 80GB HBM3 (driver 580.159.04, 2026-11-23): v2 90.4 / 91.1 / 92.2 % of read
// (uniform / normal / all equal), v3 94.7 / 95.6 / 96.2 % (1.42 / 1.27 / 1.12x CUB); on an H200
// (same driver and date) v2 84.5 / 84.2 / 82.7 %, v3 91.9 / 90.0 / 92.8 % (1.89 / 1.67 / 1.21x CUB),
// and over two later runs 88.8-92.2 / 90.2-93.8 / 89.6-90.5 %.
// What bounds v3 (an estimate, not measured): one shared-memory atomic per byte. If a bank does a
// read and a write per atomic, an SM counts at most 16 bytes a clock: 132 SMs at 1.98 GHz, 4.2 TB/s,
// the H200's read bandwidth (v2 counted 13 a clock there), so on the H200 the atomics, not the
// memory, set the pace; the H100 (3.0 TB/s) has room.
#include <cstdint>
#include <stdexcept>

#include "grader/bench/references/byte_counting.cuh"
#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

using bytes::kCopies;
using bytes::kWarpSize;

// v1: blockDim.x == kByteBins.
__global__ void __launch_bounds__(kByteBins)
    v1_thread_per_bin(const std::uint8_t* d_bytes, int n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kByteBins];
  s_bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&s_bins[d_bytes[i]], 1u);
  }
  __syncthreads();
  if (s_bins[threadIdx.x] != 0) atomicAdd(&d_bins[threadIdx.x], s_bins[threadIdx.x]);
}

// v2: s_lane_bins is this lane's copy (s_bins + lane); level v of it is s_lane_bins[v * 32].
__device__ void count_four(unsigned* s_lane_bins, unsigned word) {
  atomicAdd(&s_lane_bins[(word & 0xffu) * kCopies], 1u);
  atomicAdd(&s_lane_bins[((word >> 8) & 0xffu) * kCopies], 1u);
  atomicAdd(&s_lane_bins[((word >> 16) & 0xffu) * kCopies], 1u);
  atomicAdd(&s_lane_bins[(word >> 24) * kCopies], 1u);
}

__device__ void count_sixteen(unsigned* s_lane_bins, const uint4& v) {
  count_four(s_lane_bins, v.x);
  count_four(s_lane_bins, v.y);
  count_four(s_lane_bins, v.z);
  count_four(s_lane_bins, v.w);
}

__global__ void v2_bank_copies(const std::uint8_t* d_bytes, int n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kByteBins * kCopies];  // 32 KiB
  for (int b = threadIdx.x; b < kByteBins * kCopies; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % kWarpSize;
  unsigned* s_lane_bins = s_bins + lane;
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int tail = 0;
  if (reinterpret_cast<std::uintptr_t>(d_bytes) % alignof(uint4) == 0) {
    const int vectors = n / 16;
    const uint4* d_vectors = reinterpret_cast<const uint4*>(d_bytes);
    for (; i + stride < vectors; i += 2 * stride) {
      const uint4 first = d_vectors[i];
      const uint4 second = d_vectors[i + stride];
      count_sixteen(s_lane_bins, first);
      count_sixteen(s_lane_bins, second);
    }
    if (i < vectors) count_sixteen(s_lane_bins, d_vectors[i]);
    tail = 16 * vectors;
  }
  for (int p = tail + blockIdx.x * blockDim.x + threadIdx.x; p < n; p += stride) {
    atomicAdd(&s_lane_bins[d_bytes[p] * kCopies], 1u);
  }
  __syncthreads();
  // Thread b adds the 32 copies of level b from copy `lane` on: 32 banks at every step.
  for (int b = threadIdx.x; b < kByteBins; b += blockDim.x) {
    unsigned total = 0;
    for (int c = 0; c < kCopies; ++c) total += s_bins[b * kCopies + (c + lane) % kCopies];
    if (total != 0) atomicAdd(&d_bins[b], total);
  }
}

// v3: 2048 threads an SM need at most 32 registers a thread.
__global__ void __launch_bounds__(1024, BENCH_FULL_SM_BLOCKS_OF_1024)
    v3_prefetch(const std::uint8_t* d_bytes, int n, unsigned* d_bins) {
  __shared__ __align__(16) unsigned s_bins[bytes::kSharedWords];
  bytes::count_bytes(d_bytes, n, s_bins);
  bytes::merge_copies(s_bins, d_bins);
}

}  // namespace

void histogram_bytes_v1_thread_per_bin(const std::uint8_t* d_bytes, int n, unsigned* d_bins, int blocks) {
  cudaMemsetAsync(d_bins, 0, kByteBins * sizeof(unsigned));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  v1_thread_per_bin<<<blocks, kByteBins>>>(d_bytes, n, d_bins);
}

void histogram_bytes_v2_bank_copies(const std::uint8_t* d_bytes, int n, unsigned* d_bins, GridLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kByteBins * sizeof(unsigned));
  if (n == 0) return;
  v2_bank_copies<<<launch.blocks, launch.threads_per_block>>>(d_bytes, n, d_bins);
}

void histogram_bytes_v3_prefetch(const std::uint8_t* d_bytes, int n, unsigned* d_bins, GridLaunch launch) {
  if (launch.threads_per_block % kWarpSize != 0) {
    throw std::invalid_argument("bytes v3: threads per block must be a multiple of 32");
  }
  cudaMemsetAsync(d_bins, 0, kByteBins * sizeof(unsigned));
  if (n == 0) return;
  v3_prefetch<<<launch.blocks, launch.threads_per_block>>>(d_bytes, n, d_bins);
}

GridLaunch bytes_v2_launch(int sm_count) { return {4 * sm_count, 512}; }
GridLaunch bytes_v3_launch(int sm_count) { return {2 * sm_count, 1024}; }

}  // namespace bench::reference
