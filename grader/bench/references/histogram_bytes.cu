// 256 bins of bytes: lab 03 (b) (handout 03), then lab 06's stage 1 (handout 06), then v3.
// Figures and what bounds v3: grader/bench/NOTES.md, "histogram_bytes.cu".
//   v1 thread per bin  blocks of 256 threads, thread t owns bin t; one byte a load: loads too small
//   v2 bank copies     16 bytes a load; 32 copies of the bins, lane l's in bank l: no conflicts
//   v3 prefetch        next trip's loads issued before this trip's atomics: always 32 B in flight
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
